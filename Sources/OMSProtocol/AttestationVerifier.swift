import Foundation
import WalletCrypto

/// Checks the attestation document of one reply against an `AttestationPolicy`
/// (OMS-REFERENCE "Attestation of import requests").
///
/// In order: the `X-Attestation-Document` header is base64 of a COSE_Sign1 whose payload is a Nitro
/// attestation document; its leaf certificate chains through the `cabundle` to the pinned root at the
/// verifier's current time; the leaf's P-384 key verifies the ES384 signature; the digest is SHA384; the
/// timestamp is within 5 minutes of now; the nonce is the one sent; PCR0 passes the policy; `user_data`
/// binds the method, path, exact request body and exact reply body; and, when given, `public_key` is the
/// expected key. Any failure is a `WaasClientError` with code `.attestationVerificationFailed`, which is
/// never retryable.
///
/// The certificate chain is the same for every reply of one enclave, so chains already verified are
/// kept in ``chainCache`` (shared by copies of the verifier): a reply whose `cabundle` and leaf are
/// byte for byte those of a verified chain, valid as a whole now, skips the path check. Everything
/// else above is checked for every reply.
public struct AttestationVerifier: Sendable {
    /// What is trusted.
    public let policy: AttestationPolicy
    /// Chains verified to `policy`'s pinned root (at most 16 by default).
    public let chainCache: X509ChainCache
    private let now: @Sendable () -> Date

    /// A verifier for `policy` whose notion of the current time is `now` (the system clock by default).
    public init(
        policy: AttestationPolicy, chainCache: X509ChainCache = X509ChainCache(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.policy = policy
        self.chainCache = chainCache
        self.now = now
    }

    /// Verifies the attestation of `reply` to `request`.
    ///
    /// - Parameters:
    ///   - nonce: the nonce sent in `X-Attestation-Nonce`.
    ///   - publicKey: the key `public_key` must hold (the recipient key of GetRecipientKey), or nil.
    /// - Returns: the verified document.
    /// - Throws: `WaasClientError` `.attestationVerificationFailed`, saying which check failed.
    @discardableResult
    public func verify(
        reply: WaasHTTPResponse, to request: WaasHTTPRequest, method: WaasMethod, nonce: [UInt8],
        publicKey: [UInt8]? = nil
    ) throws(WaasClientError) -> NitroAttestationDocument {
        func failed(_ message: String) -> WaasClientError {
            WaasClientError(
                .attestationVerificationFailed, method: method, "\(method.name) attestation: \(message)",
                status: reply.status)
        }
        guard let text = reply.header(Attestation.documentHeader) else {
            throw failed("the reply has no \(Attestation.documentHeader) header")
        }
        guard let encoded = Data(base64Encoded: text) else {
            throw failed("\(Attestation.documentHeader) is not base64")
        }
        let current = now()
        let document: NitroAttestationDocument
        do {
            document = try NitroAttestationDocument.verify(
                coseSign1: [UInt8](encoded), pinnedRootSHA256: policy.pinnedRootSHA256, at: current,
                chainCache: chainCache)
        } catch {
            throw failed("\(error.code.rawValue): \(error.message)")
        }
        guard document.digest == "SHA384" else { throw failed("digest is \(document.digest), not SHA384") }
        let nowMillis = Int64((current.timeIntervalSince1970 * 1000).rounded(.down))
        let skew = abs(Int64(clamping: document.timestamp) - nowMillis)
        guard skew <= Attestation.maxTimestampSkew * 1000 else {
            throw failed("timestamp is \(skew / 1000) s from now, more than \(Attestation.maxTimestampSkew) s")
        }
        guard let echoed = document.nonce, constantTimeEquals(echoed, nonce) else {
            throw failed("the nonce is not the one sent")
        }
        if let refusal = policy.refusal(pcr0: document.pcrs[0]) { throw failed(refusal) }
        let expected = Attestation.userData(method: method, requestBody: request.body, responseBody: reply.body)
        guard let userData = document.userData, constantTimeEquals(userData, expected) else {
            throw failed("user_data does not bind this request and reply")
        }
        if let publicKey { try checkPublicKey(of: document, is: publicKey, method: method, status: reply.status) }
        return document
    }

    /// Checks that a verified document's `public_key` is `expected` (the key the reply body names).
    /// - Throws: `WaasClientError` `.attestationVerificationFailed`.
    public func checkPublicKey(
        of document: NitroAttestationDocument, is expected: [UInt8], method: WaasMethod, status: Int? = nil
    ) throws(WaasClientError) {
        guard let attested = document.publicKey, constantTimeEquals(attested, expected) else {
            throw WaasClientError(
                .attestationVerificationFailed, method: method,
                "\(method.name) attestation: public_key is not the recipient key of the reply", status: status)
        }
    }
}
