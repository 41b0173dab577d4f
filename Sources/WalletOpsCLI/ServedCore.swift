import OMSCore
import OMSProtocol
import Synchronization

/// The core as `core serve` hands it to the HTTP server: a handler that can be closed, so the
/// database is closed when serving ends even if the server object lives on.
final class ServedCore: WaasRequestHandler, WellKnownProvider {
    private let service: Mutex<WaasService?>
    let issuer: String
    let maxBodyBytes: Int

    init(_ service: WaasService) {
        self.service = Mutex(service)
        issuer = service.issuer
        maxBodyBytes = service.maxBodyBytes
    }

    /// Releases the core (and with it the database connection). Later requests are answered 503.
    func close() { service.withLock { $0 = nil } }

    private var current: WaasService? { service.withLock { $0 } }

    func handle(_ request: WaasHTTPRequest) async -> WaasHTTPResponse {
        guard let core = current else {
            return WaasHTTPResponse(
                status: 503, headers: [("Content-Type", "application/json")],
                body: (try? WaasClient.encodeBody(WaasError(.internal, "the core is shutting down").wireBody)) ?? [])
        }
        return await core.handle(request)
    }

    func response(for document: WellKnownDocument) async -> WellKnownResponse? {
        guard let core = current else { return nil }
        switch document {
        case .jwks: return (try? await core.wellKnownJWKS()).map { WellKnownResponse(body: $0) }
        case .openIDConfiguration: return (try? core.wellKnownOpenIDConfiguration()).map { WellKnownResponse(body: $0) }
        }
    }
}
