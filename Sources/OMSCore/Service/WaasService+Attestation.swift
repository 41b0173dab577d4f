import Foundation
import OMSProtocol
import WalletCrypto

extension WaasService {
    /// The root certificate of this core's development attestation chain: what a development client pins
    /// (by the SHA-256 of its DER) to trust import replies (`walletops core attestation-root`).
    public func attestationRoot() async throws -> X509Certificate {
        try await enclave.root(store: store, now: clock.now())
    }

    /// An attested call in progress: what the document will carry besides the reply's bytes.
    struct PendingAttestation: Sendable {
        var method: WaasMethod
        var nonce: [UInt8]
        var identity: DevEnclave.Identity
    }

    /// For an attested method whose request carries `X-Attestation-Nonce`: checks the nonce and readies the
    /// signing key (rotating the leaf if due) before the method runs, so signing afterwards cannot fail on
    /// storage. Nil when the reply is not to be attested.
    func prepareAttestation(_ request: WaasHTTPRequest) async throws -> PendingAttestation? {
        guard let method = WaasMethod(path: request.path), Attestation.attestedMethods.contains(method),
            let text = request.header(Attestation.nonceHeader)
        else { return nil }
        guard let nonce = Data(base64Encoded: text), (1...512).contains(nonce.count) else {
            throw WaasError(.invalidRequest, "\(Attestation.nonceHeader) must be base64 of 1-512 bytes")
        }
        let identity = try await enclave.identity(store: store, now: clock.now())
        return PendingAttestation(method: method, nonce: [UInt8](nonce), identity: identity)
    }

    /// The `X-Attestation-Document` of a final reply body: `user_data` binds the exact request and reply
    /// bytes; `public_key` is the recipient key for GetRecipientKey and null for ImportWallet (whose
    /// request names the key it used, and `user_data` covers the request).
    func attestationDocument(_ pending: PendingAttestation, request: WaasHTTPRequest, responseBody: [UInt8]) throws
        -> String
    {
        var publicKey: [UInt8]?
        if pending.method == .getRecipientKey {
            let response = try JSONDecoder().decode(GetRecipientKeyResponse.self, from: Data(responseBody))
            publicKey = CanonicalBase64.decode(response.publicKey)
        }
        let document = try enclave.document(
            pending.identity, nonce: pending.nonce, publicKey: publicKey,
            userData: Attestation.userData(
                method: pending.method, requestBody: request.body, responseBody: responseBody),
            timestampMillis: UInt64(max(clock.now(), 0)) * 1000)
        return CanonicalBase64.encode(document)
    }
}
