import Foundation
import OMSCore
import OMSProtocol

/// `core serve` in the test process: the service behind `WaasHTTPServer` on a free loopback port, reached
/// through `HTTPTransport`. The transport owns the server, so the server lives exactly as long as some
/// client or fixture still holds the transport.
final class ServedCoreTransport: WaasTransport {
    let server: WaasHTTPServer
    private let http: HTTPTransport

    init(_ service: WaasService) throws {
        // The well-known documents too, so a test may fetch them as a verifier would.
        let documents = WellKnownDocuments { document in
            switch document {
            case .jwks: (try? await service.wellKnownJWKS()).map { WellKnownResponse(body: $0) }
            case .openIDConfiguration: (try? service.wellKnownOpenIDConfiguration()).map { WellKnownResponse(body: $0) }
            }
        }
        // Two worker threads: the machine has two cores, and tests run many servers side by side.
        server = try WaasHTTPServer.start(
            handler: service, wellKnown: documents,
            configuration: WaasHTTPServer.Configuration(host: "127.0.0.1", port: 0, threadPoolSize: 2))
        http = HTTPTransport(baseURL: server.baseURL)
    }

    func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse { try await http.send(request) }

    /// Starts a graceful stop from synchronous cleanup (`defer`); callers that can await use `stop()`.
    /// Nothing is in flight when a test cleans up, so the stop is quick.
    func stopSoon() {
        let server = server
        Task { await server.stop(grace: .seconds(1)) }
    }

    func stop() async { await server.stop(grace: .seconds(1)) }
}
