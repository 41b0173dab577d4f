import Foundation
import HomeLayout
import OMSCore
import OMSProtocol
import WalletCrypto

/// How a test reaches the core: the embedded core, or `core serve` (the HTTP server on a free loopback
/// port, in this process) through `HTTPTransport`. Rule suites run once per case.
enum TransportKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case inProcess
    case http

    var description: String { rawValue }
}

/// A core in a temporary home, and clients signed in to it through a chosen transport.
struct CoreFixture {
    let home: WalletHome
    let service: WaasService
    let project: ProjectRecord
    let kind: TransportKind
    let transport: any WaasTransport
    /// The served core, for `.http`; kept so the server lives as long as the fixture.
    let server: WaasHTTPServer?

    init(
        _ kind: TransportKind = .inProcess, clock: any CoreClock = SystemClock(), project name: String = "test",
        publishableKey: String? = nil, transport makeTransport: ((WaasService) -> any WaasTransport)? = nil
    ) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("walletops-core-\(UUID().uuidString)")
        home = WalletHome(url: url)
        let result = try WaasService.initialize(home: home, project: name, publishableKey: publishableKey, clock: clock)
        project = result.project
        let service = try WaasService.open(home: home, clock: clock)
        self.service = service
        self.kind = kind
        switch kind {
        case .inProcess:
            server = nil
            transport = makeTransport?(service) ?? InProcessTransport(handler: service)
        case .http:
            let documents = WellKnownDocuments { document in
                switch document {
                case .jwks: (try? await service.wellKnownJWKS()).map { WellKnownResponse(body: $0) }
                case .openIDConfiguration:
                    (try? service.wellKnownOpenIDConfiguration()).map { WellKnownResponse(body: $0) }
                }
            }
            let server = try WaasHTTPServer.start(
                handler: service, wellKnown: documents,
                configuration: WaasHTTPServer.Configuration(threadPoolSize: 2))
            self.server = server
            transport = makeTransport?(service) ?? HTTPTransport(baseURL: server.baseURL)
        }
    }

    /// Runs `body` with a fresh core, then stops it and removes its home, whether `body` threw or not.
    static func with<T>(
        _ kind: TransportKind = .inProcess, clock: any CoreClock = SystemClock(), project name: String = "test",
        publishableKey: String? = nil, _ body: (CoreFixture) async throws -> T
    ) async throws -> T {
        let core = try CoreFixture(kind, clock: clock, project: name, publishableKey: publishableKey)
        do {
            let result = try await body(core)
            await core.close()
            return result
        } catch {
            await core.close()
            throw error
        }
    }

    var publishableKey: PublishableKey { try! PublishableKey(project.publishableKey) }

    /// An unsigned client (public methods only).
    var publicClient: WaasClient { WaasClient(transport: transport, publishableKey: publishableKey) }

    /// A client with a fresh P-256 credential that has not signed in.
    func newClient() throws -> WaasClient {
        WaasClient(
            transport: transport, publishableKey: publishableKey,
            signer: P256RequestSigner(key: try P256.Signing.PrivateKey()))
    }

    /// A client whose fresh P-256 credential signed in through the dev issuer as `email`.
    func signIn(email: String = "user@example.com", lifetime: Int? = nil) async throws -> (
        WaasClient, CompleteAuthResponse
    ) {
        let client = try newClient()
        let response = try await Self.signIn(client, service: service, email: email, lifetime: lifetime)
        return (client, response)
    }

    static func signIn(_ client: WaasClient, service: WaasService, email: String, lifetime: Int? = nil) async throws
        -> CompleteAuthResponse
    {
        let dev = try await service.devIssuer()!
        let token = try dev.idToken(email: email, now: service.now)
        let commit = try await client.call(
            .commitVerifier,
            CommitVerifierRequest(
                identityType: .oidc, authMode: .idToken,
                metadata: ["iss": dev.issuer, "aud": DevIssuer.audience, "exp": String(service.now + 600)],
                handle: Base64URL.encode(SHA256.hash(data: Array(token.utf8)))), as: CommitVerifierResponse.self)
        return try await client.call(
            .completeAuth,
            CompleteAuthRequest(
                identityType: .oidc, authMode: .idToken, verifier: commit.verifier, answer: token, lifetime: lifetime),
            as: CompleteAuthResponse.self)
    }

    /// The service error a call answers with (nil when it succeeds).
    func error<Request: Encodable>(_ client: WaasClient, _ method: WaasMethod, _ request: Request) async throws
        -> WaasError?
    {
        try await error { _ = try await client.callRaw(method, body: WaasClient.encodeBody(request)) }
    }

    /// The service error `body` throws (nil when it succeeds); any other error is rethrown.
    func error(_ body: () async throws -> Void) async throws -> WaasError? {
        do {
            try await body()
            return nil
        } catch let error as WaasError {
            return error
        }
    }

    /// Sends a request; with `mayBeCutShort`, a connection the server closed before the client finished
    /// sending (how it refuses a body over its limit without reading it) is nil rather than an error.
    func send(_ request: WaasHTTPRequest, mayBeCutShort: Bool = false) async throws -> WaasHTTPResponse? {
        do {
            return try await transport.send(request)
        } catch let error as TransportError where mayBeCutShort {
            print("\(request.path): connection closed while sending (\(error.message))")
            return nil
        }
    }

    /// The core's published keys, as a verifier would load them.
    func jwks() async throws -> JWKSet {
        let reply = try await publicClient.call(.getJWKS, Empty(), as: GetJWKSResponse.self)
        return JWKSet(
            keys: try reply.keys.map { key in
                try JWK(jsonString: String(decoding: try WaasClient.encodeBody(key), as: UTF8.self))
            })
    }

    /// Creates a wallet and returns it.
    func createWallet(_ client: WaasClient, _ family: NetworkFamily = .evm, reference: String? = nil) async throws
        -> Wallet
    {
        try await client.call(
            .createWallet, CreateWalletRequest(networkFamily: family, reference: reference), as: WalletResponse.self
        ).wallet
    }

    /// Removes the home; a server stops when the fixture is released (its deinit stops the daemon).
    func remove() { try? FileManager.default.removeItem(at: home.url) }

    /// Stops the server gracefully, then removes the home.
    func close() async {
        await server?.stop(grace: .seconds(1))
        remove()
    }
}
