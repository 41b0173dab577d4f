import Foundation
import OMSProtocol
import TestSupport
import Testing
import WalletCrypto

/// The import contract's byte strings: HPKE binding, suite ids, canonical base64 and `user_data`.
@Suite struct ImportBindingTests {
    @Test func bindingStringsAreTheDocumentedOnes() {
        #expect(String(decoding: ImportBinding.info(keyId: "rk_1"), as: UTF8.self) == "walletops/import/v1:rk_1")
        #expect(
            String(decoding: ImportBinding.aad(networkFamily: .evm, reference: nil), as: UTF8.self)
                == "walletops/import/v1\nnetworkFamily: evm")
        #expect(
            String(decoding: ImportBinding.aad(networkFamily: .solana, reference: ""), as: UTF8.self)
                == "walletops/import/v1\nnetworkFamily: solana\nreference: ")
        #expect(
            ImportBinding.aad(networkFamily: .solana, reference: "a")
                != ImportBinding.aad(networkFamily: .evm, reference: "a"))
    }

    @Test func batchBindingStringsAreTheDocumentedOnes() {
        #expect(
            String(decoding: ImportBinding.batchAAD(index: 0, networkFamily: .evm, reference: nil), as: UTF8.self)
                == "walletops/import/v1/batch\nindex: 0\nnetworkFamily: evm")
        #expect(
            String(decoding: ImportBinding.batchAAD(index: 999, networkFamily: .solana, reference: ""), as: UTF8.self)
                == "walletops/import/v1/batch\nindex: 999\nnetworkFamily: solana\nreference: ")
        // Never the single import's, and each position its own.
        let all = (0..<1000).map { ImportBinding.batchAAD(index: $0, networkFamily: .evm, reference: "r") }
        #expect(Set(all).count == 1000)
        #expect(!all.contains(ImportBinding.aad(networkFamily: .evm, reference: "r")))
        #expect(ImportWalletsRequest.maxWallets == 4000)
    }

    @Test func suitesMapToTheirRFC9180Identifiers() {
        let ids = ImportSuite.allCases.map { [$0.hpke.kem.rawValue, $0.hpke.kdf.rawValue, $0.hpke.aead.rawValue] }
        #expect(ids == [[0x10, 1, 2], [0x10, 1, 3], [0x20, 1, 2], [0x20, 1, 3]])
        #expect(ImportSuite.default.rawValue == "p256-sha256-aes256gcm")
    }

    @Test func base64MustBeCanonical() {
        #expect(CanonicalBase64.decode("AQ==") == [1])
        #expect(CanonicalBase64.decode("") == [])
        for bad in ["AQ", "AR==", "AQ==\n", " AQ==", "AQ=", "A-==", "_w=="] {
            #expect(CanonicalBase64.decode(bad) == nil, "\(bad)")
        }
    }

    /// The hand-written codec against Foundation's: every length from 0 to 99 with random bytes, and
    /// each text with one character replaced (by a digit, padding, whitespace or another alphabet's
    /// character) must be accepted exactly when Foundation decodes it to bytes that encode back to it.
    @Test func base64AgreesWithFoundation() {
        var generator = SystemRandomNumberGenerator()
        var texts = 0
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = CanonicalBase64.encode(bytes)
            #expect(text == Data(bytes).base64EncodedString())
            #expect(CanonicalBase64.decode(text) == bytes)
            guard !text.isEmpty else { continue }
            var utf8 = Array(text.utf8)
            let position = Int.random(in: 0..<utf8.count, using: &generator)
            for replacement in Array("Az09+/=- _\n".utf8) {
                utf8[position] = replacement
                let mutated = String(decoding: utf8, as: UTF8.self)
                let foundation = Data(base64Encoded: mutated).flatMap {
                    $0.base64EncodedString() == mutated ? [UInt8]($0) : nil
                }
                #expect(CanonicalBase64.decode(mutated) == foundation, "\(mutated)")
                texts += 1
            }
        }
        #expect(texts == 99 * 11)
    }

    @Test func userDataMatchesAnIndependentHash() throws {
        let request = Array(#"{"purpose":"wallet-import","suite":"p256-sha256-aes256gcm"}"#.utf8)
        let response = Array(#"{"keyId":"rk_1","publicKey":"AQ=="}"#.utf8)
        let script = """
            import base64, hashlib, sys
            req, resp = sys.argv[1].encode(), sys.argv[2].encode()
            digest = hashlib.sha256(b"POST /v1/Waas/GetRecipientKey\\n" + req + b"\\n" + resp).digest()
            print("Sequence/1:" + base64.b64encode(digest).decode(), end="")
            """
        let expected = try PythonOracle.run(
            script, arguments: [String(decoding: request, as: UTF8.self), String(decoding: response, as: UTF8.self)])
        let userData = Attestation.userData(method: .getRecipientKey, requestBody: request, responseBody: response)
        #expect(String(decoding: userData, as: UTF8.self) == expected)
        #expect(expected.hasPrefix("Sequence/1:") && expected.count == 11 + 44)
    }
}
