import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct NitroAttestationDocumentTests {
    struct Mock {
        let message: [UInt8]
        let bitFlipped: [UInt8]
        let pin: [UInt8]
        let verifyAt: Date
        let leafExpiredAt: Date
        let expected: [String: String]
    }

    static func mock() throws -> Mock {
        let json = try #require(Fixtures.json("vectors/mock_nitro_attestation_doc.json") as? [String: Any])
        let negative = try #require(json["negative"] as? [String: Any])
        let messageHex = try #require(json["attestation_doc_cose_sign1_hex"] as? String)
        let flippedHex = try #require(negative["signature_bit_flipped_hex"] as? String)
        let pinHex = try #require(json["root_sha256"] as? String)
        let verifyMs = try #require(json["verify_at_unix_ms"] as? Int)
        let expiredMs = try #require(negative["leaf_expired_if_checked_at_unix_ms"] as? Int)
        return Mock(
            message: try #require(TestSupport.Hex.decode(messageHex)),
            bitFlipped: try #require(TestSupport.Hex.decode(flippedHex)),
            pin: try #require(TestSupport.Hex.decode(pinHex)),
            verifyAt: Date(timeIntervalSince1970: Double(verifyMs) / 1000),
            leafExpiredAt: Date(timeIntervalSince1970: Double(expiredMs) / 1000),
            expected: try #require(json["expected"] as? [String: String]))
    }

    @Test func mockDocumentParsesIntoFields() throws {
        let mock = try Self.mock()
        let message = try COSESign1(encoded: mock.message)
        #expect(message.algorithm == -35)
        let document = try NitroAttestationDocument(payload: message.payload)
        var tally = VectorTally("mock_nitro_attestation_doc.json expected fields")
        #expect(document.moduleID == mock.expected["module_id"])
        #expect(document.digest == mock.expected["digest"])
        tally.ran(2)
        for index in 0..<3 {
            #expect(document.pcrs[index].map { TestSupport.Hex.encode($0) } == mock.expected["pcr\(index)"])
            tally.ran()
        }
        #expect(document.pcrs.count == 16)
        #expect(document.pcrs.values.allSatisfy { $0.count == 48 })
        let publicKeyHex = try #require(mock.expected.first { $0.key.hasPrefix("public_key_hex") }?.value)
        #expect(document.publicKey.map { TestSupport.Hex.encode($0) } == publicKeyHex)
        #expect(document.userData.map { String(decoding: $0, as: UTF8.self) } == mock.expected["user_data_ascii"])
        #expect(document.nonce.map { TestSupport.Hex.encode($0) } == mock.expected["nonce_hex"])
        tally.ran(3)
        tally.report()
        #expect(tally.ran == 8)
        #expect(document.timestamp > 0)
        #expect(abs(document.date.timeIntervalSince(mock.verifyAt)) < 86_400)
        #expect(document.cabundle.count >= 2)
        #expect(try X509Certificate(derEncoded: document.certificate).keyAlgorithm == .ecP384)
    }

    @Test func mockDocumentVerifiesEndToEnd() throws {
        let mock = try Self.mock()
        let document = try NitroAttestationDocument.verify(
            coseSign1: mock.message, pinnedRootSHA256: mock.pin, at: mock.verifyAt)
        #expect(document.moduleID == mock.expected["module_id"])

        #expect(throws: NitroAttestationError(.invalidSignature, "")) {
            try NitroAttestationDocument.verify(
                coseSign1: mock.bitFlipped, pinnedRootSHA256: mock.pin, at: mock.verifyAt)
        }
        #expect(throws: NitroAttestationError(.untrustedCertificate, "")) {
            try NitroAttestationDocument.verify(
                coseSign1: mock.message, pinnedRootSHA256: mock.pin, at: mock.leafExpiredAt)
        }
        let awsPin = try #require(TestSupport.Hex.decode(X509CertificateTests.awsRootSHA256))
        #expect(throws: NitroAttestationError(.untrustedCertificate, "")) {
            try NitroAttestationDocument.verify(coseSign1: mock.message, pinnedRootSHA256: awsPin, at: mock.verifyAt)
        }
        #expect(throws: NitroAttestationError(.malformed, "")) {
            try NitroAttestationDocument.verify(
                coseSign1: Array(mock.message.dropLast()), pinnedRootSHA256: mock.pin, at: mock.verifyAt)
        }
    }

    /// A valid payload map, to be broken one field at a time.
    static func payload(replacing key: String? = nil, with value: CBOR? = nil) -> CBOR {
        var entries: [CBOR.MapEntry] = [
            .init("module_id", "i-123"), .init("digest", "SHA384"), .init("timestamp", 1_700_000_000_000),
            .init("pcrs", [0: .bytes([UInt8](repeating: 0, count: 48)), 1: .bytes([UInt8](repeating: 1, count: 48))]),
            .init("certificate", .bytes([0x30, 0x00])), .init("cabundle", [.bytes([0x30, 0x00])]),
            .init("public_key", nil), .init("user_data", .bytes([])), .init("nonce", .bytes([1, 2])),
        ]
        if let key {
            entries.removeAll { $0.key == .text(key) }
            if let value { entries.append(.init(.text(key), value)) }
        }
        return .map(entries)
    }

    @Test func fieldTypesAreChecked() throws {
        let document = try NitroAttestationDocument(payload: Self.payload().encoded())
        #expect(document.publicKey == nil)
        #expect(document.userData == [])
        #expect(document.nonce == [1, 2])
        #expect(document.pcrs[1] == [UInt8](repeating: 1, count: 48))

        let bad: [(String, CBOR?)] = [
            ("module_id", nil), ("module_id", 5), ("module_id", ""),
            ("digest", "SHA256"), ("digest", nil),
            ("timestamp", "now"), ("timestamp", -1), ("timestamp", 0),
            ("pcrs", [:]), ("pcrs", [0: .bytes([1, 2])]), ("pcrs", [32: .bytes([UInt8](repeating: 0, count: 48))]),
            ("pcrs", ["0": .bytes([UInt8](repeating: 0, count: 48))]), ("pcrs", [.bytes([])]),
            ("pcrs", [0: .bytes([UInt8](repeating: 0, count: 40))]),
            ("certificate", nil), ("certificate", .bytes([])), ("certificate", "pem"),
            ("certificate", .bytes([UInt8](repeating: 0, count: 1025))),
            ("cabundle", []), ("cabundle", .bytes([1])), ("cabundle", [.bytes([])]), ("cabundle", ["x"]),
            ("public_key", .bytes([])), ("public_key", "key"),
            ("user_data", .bytes([UInt8](repeating: 0, count: 513))), ("nonce", 7),
        ]
        for (key, value) in bad {
            #expect(throws: NitroAttestationError(.malformed, ""), "\(key) = \(String(describing: value))") {
                try NitroAttestationDocument(payload: Self.payload(replacing: key, with: value).encoded())
            }
        }
        #expect(throws: NitroAttestationError(.malformed, "")) {
            try NitroAttestationDocument(payload: CBOR.array([]).encoded())
        }
        #expect(throws: NitroAttestationError(.malformed, "")) {
            try NitroAttestationDocument(payload: Self.payload().encoded() + [0])
        }
        // Nested too deep under an unknown key: refused by the decoder's bound.
        let deep = [UInt8](repeating: 0x81, count: 1000) + [0x00]
        var entries = Self.payload().mapValue!
        entries.append(.init("extra", .null))
        var bytes = CBOR.map(entries).encoded()
        bytes.removeLast()
        bytes += deep
        #expect(throws: NitroAttestationError(.malformed, "")) { try NitroAttestationDocument(payload: bytes) }
    }
}
