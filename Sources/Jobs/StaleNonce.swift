import OMSProtocol

/// Calls made of several requests (a listing of every page) run again, a few times, when one of their
/// requests is still refused for a stale nonce (PreconditionFailed 7206) after the client's own resends
/// (`WaasClient.maximumNonceAttempts`, OMSProtocol): concurrent items and other processes share the
/// credential. Such a refusal changes nothing, so running the call again is safe.
enum StaleNonce {
    static let maximumAttempts = 4

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
    /// ``call(_:_:as:)`` run again when still refused for a stale nonce (see ``StaleNonce``).
    func jobCall<Request: Encodable & Sendable, Response: Decodable & Sendable>(
        _ method: WaasMethod, _ request: Request, as type: Response.Type = Response.self
    ) async throws -> Response {
        try await StaleNonce.retrying { try await call(method, request, as: type) }
    }
}
