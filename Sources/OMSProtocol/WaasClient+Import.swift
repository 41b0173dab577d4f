import Foundation
import WalletCrypto

extension WaasClient {
    /// Calls an attested method: sends a fresh `X-Attestation-Nonce` and verifies the reply's document.
    ///
    /// - Parameter publicKey: derives the key `public_key` must hold from the decoded reply, or nil.
    /// - Throws: `WaasError` for a service error; `WaasClientError` `.attestationVerificationFailed` or
    ///   `.invalidResponse`.
    public func attestedCall<Response: Decodable>(
        _ method: WaasMethod, body: [UInt8], as: Response.Type = Response.self, verifier: AttestationVerifier,
        publicKey: (Response) throws -> [UInt8]? = { _ in nil }
    ) async throws -> Response {
        let (reply, document) = try await attestedReply(method, body: body, verifier: verifier)
        let response = try Self.decode(Response.self, from: reply, method: method)
        if let expected = try publicKey(response) {
            try verifier.checkPublicKey(of: document, is: expected, method: method, status: reply.status)
        }
        return response
    }

    /// Sends an attested request and verifies the reply's document; the body is the caller's to decode.
    func attestedReply(_ method: WaasMethod, body: [UInt8], verifier: AttestationVerifier) async throws -> (
        WaasHTTPResponse, NitroAttestationDocument
    ) {
        let nonce = Attestation.makeNonce()
        let (reply, request) = try await callRaw(
            method, body: body, extraHeaders: [(Attestation.nonceHeader, CanonicalBase64.encode(nonce))])
        // The document is checked before the body is even decoded: nothing of an unverified reply is used.
        let document = try verifier.verify(reply: reply, to: request, method: method, nonce: nonce)
        return (reply, document)
    }

    /// `Waas/GetRecipientKey`, attested: a fresh recipient key whose attestation document names it as
    /// `public_key`.
    ///
    /// - Returns: the key id and the decoded public key (65-byte P-256 point or 32-byte X25519 key).
    public func recipientKey(suite: ImportSuite = .default, verifier: AttestationVerifier) async throws -> (
        keyId: String, publicKey: [UInt8]
    ) {
        let method = WaasMethod.getRecipientKey
        let response = try await attestedCall(
            method, body: Self.encodeBody(GetRecipientKeyRequest(suite: suite.rawValue)),
            as: GetRecipientKeyResponse.self, verifier: verifier
        ) { response in
            guard let key = CanonicalBase64.decode(response.publicKey),
                key.count == suite.hpke.kem.encapsulatedKeySize
            else {
                throw WaasClientError(
                    .invalidResponse, method: method,
                    "GetRecipientKey: publicKey is not canonical base64 of a \(suite.rawValue) public key")
            }
            return key
        }
        return (response.keyId, CanonicalBase64.decode(response.publicKey) ?? [])
    }

    /// Imports a private key into a new wallet: GetRecipientKey (attested) -> HPKE seal -> ImportWallet
    /// (attested), per OMS-REFERENCE "Import" and docs/import.md.
    ///
    /// The key is sealed only after the recipient key's attestation verified, so no key material leaves
    /// the process when any check fails.
    ///
    /// - Parameters:
    ///   - privateKey: the key as the service accepts it: Ethereum 32 bytes or 64 hex digits (optional
    ///     `0x`), Solana a 32-byte seed or 64-byte keypair, raw or base58.
    ///   - networkFamily: `evm` or `solana`.
    ///   - reference: an optional label, at most 128 UTF-8 bytes.
    ///   - suite: the HPKE suite (default `p256-sha256-aes256gcm`).
    ///   - verifier: the attestation checks for the service's environment.
    /// - Throws: `WaasError` (e.g. AddressAlreadyImported 7313), `WaasClientError`
    ///   `.attestationVerificationFailed` (not retryable) or `.invalidResponse`.
    public func importWallet(
        privateKey: SecretBytes, networkFamily: NetworkFamily, reference: String? = nil,
        suite: ImportSuite = .default, verifier: AttestationVerifier
    ) async throws -> Wallet {
        let recipient = try await recipientKey(suite: suite, verifier: verifier)
        let sender = try HPKE.Sender(
            suite: suite.hpke, recipientKey: recipient.publicKey, info: ImportBinding.info(keyId: recipient.keyId))
        let ciphertext = try privateKey.withUnsafeBytes { plaintext in
            try sender.seal(
                plaintext, authenticating: ImportBinding.aad(networkFamily: networkFamily, reference: reference))
        }
        let request = ImportWalletRequest(
            networkFamily: networkFamily, reference: reference,
            keyMaterial: KeyMaterial(
                keyId: recipient.keyId, suite: suite.rawValue,
                encapsulatedKey: CanonicalBase64.encode(sender.encapsulatedKey),
                ciphertext: CanonicalBase64.encode(ciphertext)))
        let response = try await attestedCall(
            .importWallet, body: Self.encodeBody(request), as: WalletResponse.self, verifier: verifier)
        guard response.wallet.networkFamily == networkFamily else {
            throw WaasClientError(
                .invalidResponse, method: .importWallet,
                "ImportWallet: the reply's wallet is \(response.wallet.networkFamily), not \(networkFamily)")
        }
        return response.wallet
    }
}

extension WaasClientError {
    /// Whether the same call may succeed if tried again: never for client-side failures (an attestation
    /// that failed to verify must not be retried into success).
    public var isRetryable: Bool { false }
}
