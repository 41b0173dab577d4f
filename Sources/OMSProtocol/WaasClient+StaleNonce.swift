import Foundation

/// Requests refused for a stale nonce are signed again with a fresh one and resent.
///
/// Nonces are per credential and must increase (OMS-REFERENCE.md). When one credential signs in several
/// places at once — concurrent tasks of one process, or two processes sharing a stored credential (a
/// job and `walletops wallet list` beside it) — a request can reach the core after one with a higher
/// nonce and be refused with PreconditionFailed (7206). The core checks the nonce before anything else,
/// inside the method's transaction, so such a refusal changed nothing: sending the request again under a
/// fresh, higher nonce is safe for every method, creating ones included. The client does so at most
/// ``nonceAttempts`` times in all (default ``maximumNonceAttempts``), after a jittered pause of a few
/// milliseconds. When the core names its last nonce ("... the last one used (L)") and this client has
/// signed above `L`, the refusal was its own later request arriving first, and the next nonce is sent
/// as it comes. Otherwise another signer is ahead, and the nonce source moves past `L` (or past its own
/// clock when the core names none) by a margin that doubles per attempt (4, 8, 16 ... ms): landing just
/// above `L` would lose the same race again to the requests that signer sent meanwhile. Only then: a
/// margin taken on every refusal between one job's concurrent requests would add up, carrying its nonces
/// ever further ahead of the clock and of every other signer of the credential.
extension WaasClient {
    /// The default attempts per call (the first one included) before a stale-nonce refusal is thrown.
    public static let maximumNonceAttempts = 10

    /// Whether `error` is a stale-nonce refusal, and the core's last nonce when its message names it.
    static func staleNonce(_ error: WaasError) -> (isStale: Bool, lastUsed: UInt64?) {
        guard error.code == .preconditionFailed else { return (false, nil) }
        // "nonce N is not above the last one used (L)": the walletops core names L.
        guard let open = error.message.lastIndex(of: "("), let close = error.message.lastIndex(of: ")"),
            open < close
        else { return (true, nil) }
        return (true, UInt64(error.message[error.message.index(after: open)..<close]))
    }

    /// Sends `body` signed under fresh nonces until it is not refused as stale (bounded).
    func sendRetryingStaleNonces(
        _ method: WaasMethod, body: [UInt8], extraHeaders: [(name: String, value: String)]
    ) async throws -> (WaasHTTPResponse, WaasHTTPRequest) {
        var attempt = 1
        while true {
            let request = try makeRequest(method, body: body, extraHeaders: extraHeaders)
            let response = try await transport.send(request)
            if (200..<300).contains(response.status) { return (response, request) }
            guard let error = WaasError(wireBody: response.body, httpStatus: response.status) else {
                throw WaasClientError(
                    .invalidResponse, method: method, "HTTP \(response.status) without an error body",
                    status: response.status)
            }
            let stale = Self.staleNonce(error)
            guard method.isProtected, stale.isStale, attempt < nonceAttempts else { throw error }
            let margin = UInt64(1) << UInt64(min(attempt + 1, 16))
            if let last = stale.lastUsed {
                nonces.overtake(last, margin: margin)
            } else {
                nonces.skip(milliseconds: margin)
            }
            attempt += 1
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...attempt)))
        }
    }
}
