import Foundation
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

/// The development chain: made once at init, its leaf re-issued under the same root.
@Suite struct ImportAttestationChainTests {
    @Test func theLeafRotatesUnderTheSameRootAndInitKeepsTheRoot() async throws {
        let clock = ManualClock()
        let harness = try await ImportHarness(clock: clock)
        defer { harness.remove() }
        // core init wrote the root for clients to pin, and running it again changes nothing.
        let pem = try String(contentsOf: harness.core.home.attestationRootURL, encoding: .utf8)
        #expect(try AttestationPolicy.development(rootPEM: pem) == .development(root: harness.root))
        _ = try WaasService.initialize(home: harness.core.home, project: "test", clock: clock)
        #expect(try await harness.core.service.attestationRoot() == harness.root)

        func leafOfNextImport() async throws -> [UInt8] {
            // A full attested exchange first: the verifier accepts the current leaf.
            _ = try await harness.client.recipientKey(verifier: harness.verifier)
            let (raw, _) = try await harness.client.callRaw(
                .getRecipientKey, body: Array(#"{"purpose":"wallet-import","suite":"x25519-sha256-aes256gcm"}"#.utf8),
                extraHeaders: [(Attestation.nonceHeader, CanonicalBase64.encode(Attestation.makeNonce()))])
            let message = try COSESign1(encoded: [UInt8](Data(base64Encoded: raw.header(Attestation.documentHeader)!)!))
            return try NitroAttestationDocument(payload: message.payload).certificate
        }
        let first = try await leafOfNextImport()
        clock.advance(by: 22 * 3_600)
        #expect(try await leafOfNextImport() == first)
        clock.advance(by: 3_600 + 1)  // less than an hour left: re-issued
        let second = try await leafOfNextImport()
        #expect(second != first)
        let leaf = try X509Certificate(derEncoded: second)
        #expect(leaf.notAfter.timeIntervalSince1970 == TimeInterval(clock.now() + 86_400))
        // Imports go on verifying under the pinned root.
        let key = Secp256k1.PrivateKey.generate()
        let wallet = try await harness.client.importWallet(
            privateKey: key.secretBytes, networkFamily: .evm, verifier: harness.verifier)
        #expect(wallet.address == key.ethereumAddress.checksummed)
        #expect(try await harness.core.service.attestationRoot() == harness.root)
    }
}
