import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct COSESign1Tests {
    struct Example {
        let message: [UInt8]
        let toBeSigned: [UInt8]
        let payload: String
        let key: P384.Signing.PublicKey
    }

    static func example() throws -> Example {
        let json = try #require(Fixtures.json("vectors/cose_sign1_es384_example.json") as? [String: Any])
        let jwk = try #require(json["public_jwk"] as? [String: String])
        #expect(jwk["crv"] == "P-384")
        let x = try Base64URL.decode(try #require(jwk["x"]))
        let y = try Base64URL.decode(try #require(jwk["y"]))
        let messageHex = try #require(json["cose_sign1_tagged_hex"] as? String)
        let tbsHex = try #require(json["sig_structure_tbs_hex"] as? String)
        return Example(
            message: try #require(TestSupport.Hex.decode(messageHex)),
            toBeSigned: try #require(TestSupport.Hex.decode(tbsHex)),
            payload: try #require(json["payload_ascii"] as? String), key: try P384.Signing.PublicKey(x: x, y: y))
    }

    @Test func coseWgExampleVerifies() throws {
        let example = try Self.example()
        var tally = VectorTally("cose_sign1_es384_example.json")
        let message = try COSESign1(encoded: example.message)
        #expect(message.algorithm == -35)
        #expect(message.protectedHeaderBytes == [0xA1, 0x01, 0x38, 0x22])
        #expect(message.unprotectedHeader[4]?.bytesValue == Array("P384".utf8))  // kid
        #expect(String(decoding: message.payload, as: UTF8.self) == example.payload)
        #expect(message.signature.count == 96)
        #expect(message.signatureStructure() == example.toBeSigned)
        try message.verify(publicKey: example.key)
        #expect(message.encoded() == example.message)
        tally.ran()

        // The untagged form carries the same message.
        let untagged = try COSESign1(encoded: message.encoded(tagged: false))
        try untagged.verify(publicKey: example.key)
        tally.ran()
        tally.report()
        #expect(tally.ran == 2)
    }

    @Test func modifiedMessagesFail() throws {
        let example = try Self.example()
        let message = try COSESign1(encoded: example.message)
        // A different payload of the same length: the byte string body starts 21 bytes before the signature.
        var tampered = example.message
        let payloadStart = try #require(indexOf(Array(example.payload.utf8), in: tampered))
        tampered[payloadStart] ^= 0x01
        #expect(throws: COSEError(.invalidSignature, "")) {
            try COSESign1(encoded: tampered).verify(publicKey: example.key)
        }
        var flipped = example.message
        flipped[flipped.count - 1] ^= 0x80
        #expect(throws: COSEError(.invalidSignature, "")) {
            try COSESign1(encoded: flipped).verify(publicKey: example.key)
        }
        // External AAD is part of the signed structure.
        #expect(throws: COSEError(.invalidSignature, "")) {
            try message.verify(publicKey: example.key, externalAAD: [1])
        }
        // Another key.
        let otherKey = try P384.Signing.PrivateKey().publicKey
        #expect(throws: COSEError(.invalidSignature, "")) { try message.verify(publicKey: otherKey) }
    }

    func indexOf(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
    }

    @Test func signThenVerifyRoundTrip() throws {
        let key = try P384.Signing.PrivateKey()
        let payload = Array("attested".utf8)
        let message = try COSESign1.sign(payload: payload, privateKey: key, unprotectedHeader: [4: .bytes([7])])
        #expect(message.protectedHeaderBytes == [0xA1, 0x01, 0x38, 0x22])
        let reparsed = try COSESign1(encoded: message.encoded())
        #expect(reparsed == message)
        try reparsed.verify(publicKey: key.publicKey)
        let withAAD = try COSESign1.sign(payload: payload, privateKey: key, externalAAD: [9, 9])
        try withAAD.verify(publicKey: key.publicKey, externalAAD: [9, 9])
        #expect(throws: COSEError(.invalidSignature, "")) { try withAAD.verify(publicKey: key.publicKey) }
    }

    @Test func shapeErrorsAndOtherAlgorithmsAreRefused() throws {
        let key = try P384.Signing.PrivateKey()
        let signature = CBOR.bytes([UInt8](repeating: 1, count: 96))
        let es384 = CBOR.bytes(CBOR.map([.init(1, -35)]).encoded())
        let malformed: [CBOR] = [
            .tagged(98, [es384, [:], .bytes([]), signature]),  // COSE_Sign, not COSE_Sign1
            [es384, [:], .bytes([])],
            [.map([]), [:], .bytes([]), signature],  // protected header not wrapped in a bstr
            [es384, .bytes([]), .bytes([]), signature],
            [es384, [:], nil, signature],  // detached payload
            [es384, [:], "text", signature],
            [es384, [:], .bytes([]), "sig"],
            [.bytes([0x83, 0x01]), [:], .bytes([]), signature],  // truncated protected header
            [.bytes([0x01]), [:], .bytes([]), signature],  // protected header not a map
        ]
        for item in malformed {
            #expect(throws: COSEError(.malformed, ""), "\(item)") { try COSESign1(encoded: item.encoded()) }
        }
        #expect(throws: COSEError(.malformed, "")) { try COSESign1(encoded: [0xD2, 0x84, 0x40]) }

        // ES256 (-7) in the protected header, or ES384 only in the unprotected header: refused.
        let es256 = try COSESign1(item: [.bytes(CBOR.map([.init(1, -7)]).encoded()), [:], .bytes([]), signature])
        #expect(throws: COSEError(.unsupportedAlgorithm, "")) { try es256.verify(publicKey: key.publicKey) }
        let unprotectedOnly = try COSESign1(item: [.bytes([]), [1: -35], .bytes([]), signature])
        #expect(unprotectedOnly.protectedHeader == .map([]))
        #expect(throws: COSEError(.unsupportedAlgorithm, "")) { try unprotectedOnly.verify(publicKey: key.publicKey) }
    }

    @Test func depthBombIsRefusedNotCrashed() {
        let bomb = [0xD2, 0x84, 0x40, 0xA0] + [UInt8](repeating: 0x81, count: 200_000) + [0x40]
        #expect(throws: COSEError(.malformed, "")) { try COSESign1(encoded: bomb) }
        do {
            _ = try COSESign1(encoded: bomb)
        } catch {
            #expect(error.message.contains("depthExceeded"))
        }
    }
}
