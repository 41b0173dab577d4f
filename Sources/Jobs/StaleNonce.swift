import OMSProtocol

/// Concurrent items share one client, so two requests can reach the core out of nonce order and the
/// later-arriving one is refused with PreconditionFailed (7206) before anything happens. Such a refusal
/// changes nothing, so the request is simply sent again with a fresh nonce (bounded).
enum StaleNonce {
    static let maximumAttempts = 20

    static func retrying<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch let error as WaasError where error.code == .preconditionFailed && attempt < maximumAttempts {
                attempt += 1
                try await Task.sleep(for: .milliseconds(attempt))
            }
        }
    }
}

extension WaasClient {
    /// ``call(_:_:as:)`` sent again when refused for a stale nonce (see ``StaleNonce``).
    func jobCall<Request: Encodable & Sendable, Response: Decodable & Sendable>(
        _ method: WaasMethod, _ request: Request, as type: Response.Type = Response.self
    ) async throws -> Response {
        try await StaleNonce.retrying { try await call(method, request, as: type) }
    }
}
