import Foundation
import OMSCore
import OMSProtocol
import WalletCrypto

/// A core in a temporary home, and clients signed in to it through a chosen transport.
struct CoreFixture {
    let home: CoreHome
    let service: WaasService
    let project: ProjectRecord
    let transport: any WaasTransport

    init(clock: any CoreClock = SystemClock(), transport makeTransport: ((WaasService) -> any WaasTransport)? = nil)
        throws
    {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("walletops-core-\(UUID().uuidString)")
        home = CoreHome(url: url)
        let result = try WaasService.initialize(home: home, project: "test", clock: clock)
        project = result.project
        service = try WaasService.open(home: home, clock: clock)
        transport = makeTransport?(service) ?? InProcessTransport(handler: service)
    }

    var publishableKey: PublishableKey { try! PublishableKey(project.publishableKey) }

    /// An unsigned client (public methods only).
    var publicClient: WaasClient { WaasClient(transport: transport, publishableKey: publishableKey) }

    /// A client whose fresh P-256 credential signed in through the dev issuer as `email`.
    func signIn(email: String = "user@example.com", lifetime: Int? = nil) async throws -> (
        WaasClient, CompleteAuthResponse
    ) {
        let client = WaasClient(
            transport: transport, publishableKey: publishableKey,
            signer: P256RequestSigner(key: try P256.Signing.PrivateKey()))
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

    func remove() { try? FileManager.default.removeItem(at: home.url) }
}
