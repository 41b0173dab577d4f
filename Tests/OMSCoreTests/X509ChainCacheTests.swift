import Foundation
import OMSCore
import OMSProtocol
import Testing
import WalletCrypto

/// The verifier's chain cache skips only the path check of a chain it verified, valid now as a whole:
/// every document's own signature and fields are still checked, and a changed, expired or evicted chain
/// is verified in full again.
@Suite struct X509ChainCacheTests {
    /// A real document of the core (GetRecipientKey's), its header text and the core's root fingerprint.
    static func coreDocument(_ harness: ImportHarness) async throws -> [UInt8] {
        let nonce = Attestation.makeNonce()
        let (reply, _) = try await harness.client.callRaw(
            .getRecipientKey, body: WaasClient.encodeBody(GetRecipientKeyRequest(suite: ImportSuite.default.rawValue)),
            extraHeaders: [(Attestation.nonceHeader, CanonicalBase64.encode(nonce))])
        return [UInt8](Data(base64Encoded: try #require(reply.header(Attestation.documentHeader)))!)
    }

    @Test func repliesOfOneEnclaveVerifyTheChainOnce() async throws {
        let harness = try await ImportHarness(.inProcess)
        defer { harness.remove() }
        let verifier = harness.verifier
        for _ in 0..<3 {
            _ = try await harness.client.importWallet(
                privateKey: Secp256k1.PrivateKey.generate().secretBytes, networkFamily: .evm, verifier: verifier)
        }
        _ = try await harness.client.importWallets(
            [ImportItem(privateKey: Secp256k1.PrivateKey.generate().secretBytes, networkFamily: .evm)],
            verifier: verifier)
        // Eight attested replies: the first verified the chain, the other seven found it.
        #expect(verifier.chainCache.statistics.misses == 1)
        #expect(verifier.chainCache.statistics.hits == 7)
    }

    @Test func aCachedChainDoesNotVouchForAnotherSignature() async throws {
        let harness = try await ImportHarness(.inProcess)
        defer { harness.remove() }
        let cache = X509ChainCache()
        let pin = harness.root.sha256Fingerprint
        let genuine = try await Self.coreDocument(harness)
        _ = try NitroAttestationDocument.verify(
            coseSign1: genuine, pinnedRootSHA256: pin, at: Date(), chainCache: cache)
        // The same certificates and payload, signed by a key that is not the leaf's.
        let message = try COSESign1(encoded: genuine)
        let forged = try COSESign1.sign(payload: message.payload, privateKey: P384.Signing.PrivateKey()).encoded()
        #expect(throws: NitroAttestationError(.invalidSignature, "")) {
            try NitroAttestationDocument.verify(coseSign1: forged, pinnedRootSHA256: pin, at: Date(), chainCache: cache)
        }
        #expect(cache.statistics.hits == 1)
        // And the cache answers for its pin only.
        let otherPin = SHA256.hash(data: pin)
        #expect(throws: NitroAttestationError(.untrustedCertificate, "")) {
            try NitroAttestationDocument.verify(
                coseSign1: genuine, pinnedRootSHA256: otherPin, at: Date(), chainCache: cache)
        }
    }

    @Test func aCachedChainOutsideItsValidityIsVerifiedAgainAndRefused() async throws {
        let harness = try await ImportHarness(.inProcess)
        defer { harness.remove() }
        let cache = X509ChainCache()
        let pin = harness.root.sha256Fingerprint
        let genuine = try await Self.coreDocument(harness)
        let document = try NitroAttestationDocument.verify(
            coseSign1: genuine, pinnedRootSHA256: pin, at: Date(), chainCache: cache)
        let leaf = try X509Certificate(derEncoded: document.certificate)
        for date in [leaf.notAfter + 1, leaf.notBefore - 1] {
            do {
                _ = try NitroAttestationDocument.verify(
                    coseSign1: genuine, pinnedRootSHA256: pin, at: date, chainCache: cache)
                Issue.record("a chain outside its validity was accepted at \(date)")
            } catch {
                #expect(error.code == .untrustedCertificate, "\(error)")
            }
        }
        #expect(cache.statistics.hits == 0 && cache.statistics.misses == 3)
        // Within the window it is a hit again.
        _ = try NitroAttestationDocument.verify(
            coseSign1: genuine, pinnedRootSHA256: pin, at: Date(), chainCache: cache)
        #expect(cache.statistics.hits == 1)
    }

    @Test func theCacheIsBounded() async throws {
        let harness = try await ImportHarness(.inProcess)
        defer { harness.remove() }
        let header = CanonicalBase64.encode(try await Self.coreDocument(harness))
        let cache = X509ChainCache(capacity: 2)
        let enclaves = try (0..<3).map { _ in try TestEnclave() }
        let documents = try enclaves.map { [UInt8](Data(base64Encoded: try $0.resign(header))!) }
        func verify(_ index: Int) throws {
            _ = try NitroAttestationDocument.verify(
                coseSign1: documents[index], pinnedRootSHA256: enclaves[index].root.sha256Fingerprint, at: Date(),
                chainCache: cache)
        }
        try verify(0)
        try verify(1)
        try verify(1)
        #expect(cache.statistics.hits == 1)
        try verify(2)  // evicts 0, the least recently used
        try verify(1)
        #expect(cache.statistics.hits == 2)
        try verify(0)
        #expect(cache.statistics.hits == 2 && cache.statistics.misses == 4)
    }
}
