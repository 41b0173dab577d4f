import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// How the access and import suites reach the core: embedded (`InProcessTransport`), or `core serve`
/// (`WaasHTTPServer` on a free loopback port, reached through `HTTPTransport`). Every suite takes one as its
/// argument, so each rule runs against both.
enum AccessTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inProcess
    case http

    var testDescription: String { rawValue }

    /// The client's side of the wire to `service`. Over HTTP the transport owns the server, which serves
    /// for as long as the transport is held.
    func connect(_ service: WaasService) throws -> any WaasTransport {
        switch self {
        case .inProcess: InProcessTransport(handler: service)
        case .http: try ServedCoreTransport(service)
        }
    }

    func makeCore(clock: any CoreClock = SystemClock()) throws -> CoreFixture {
        try CoreFixture.connected(clock: clock, connect)
    }
}

/// A core with a signed-in owner, an Ethereum wallet, and helpers for remote credentials and sessions.
struct AccessWorld {
    let core: CoreFixture
    let owner: WaasClient
    let ownerId: String
    let wallet: Wallet

    static let amoy = Network.polygonAmoy.wireChainId
    static let receiver = "0x1111111111111111111111111111111111111111"
    static let otherReceiver = "0x2222222222222222222222222222222222222222"
    static let token = "0x3333333333333333333333333333333333333333"

    static func make(_ transport: AccessTransport, clock: any CoreClock = SystemClock()) async throws -> AccessWorld {
        let core = try transport.makeCore(clock: clock)
        let (owner, auth) = try await core.signIn(email: "owner@example.com")
        let wallet = try await owner.call(
            .createWallet, CreateWalletRequest(networkFamily: .evm), as: WalletResponse.self
        ).wallet
        return AccessWorld(core: core, owner: owner, ownerId: auth.credential.credentialId, wallet: wallet)
    }

    var now: Int64 { core.service.now }

    /// Stops the served core (over HTTP) and removes the home.
    func remove() { core.removeServed() }

    /// A new Ethereum key registered as a remote credential.
    func remote(lifetime: Int = 86_400, name: String = "Backend") async throws -> WaasClient {
        let client = unregisteredRemote()
        _ = try await client.call(
            .registerCredential,
            RegisterCredentialRequest(
                lifetime: lifetime, metadata: CredentialMetadata(appUrl: "https://app.example", appName: name)),
            as: RegisterCredentialResponse.self)
        return client
    }

    func unregisteredRemote() -> WaasClient {
        WaasClient(
            transport: core.transport, publishableKey: core.publishableKey,
            signer: EthereumRequestSigner(key: .generate()))
    }

    /// Authorizes `remote` on the world's wallet (or `walletId`) with `grants`, `seconds` from now.
    @discardableResult
    func authorize(
        _ remote: WaasClient, grants: [Grant] = [.nativeTransfer(to: receiver, limit: "1000")], seconds: Int64 = 3600,
        sessionId: String? = nil, by client: WaasClient? = nil, walletId: String? = nil
    ) async throws -> AuthorizeRemoteAccessResponse {
        try await (client ?? owner).call(
            .authorizeRemoteAccess,
            AuthorizeRemoteAccessRequest(
                credentialId: remote.signer!.credentialId, walletId: walletId ?? wallet.id, grants: grants,
                expiry: RFC3339.format(now + seconds), chainId: Self.amoy, sessionId: sessionId),
            as: AuthorizeRemoteAccessResponse.self)
    }

    /// Every page of ListAccess, following cursors.
    func listAll(_ client: WaasClient? = nil, type: CredentialType? = nil, limit: Int? = nil) async throws
        -> [CredentialInfo]
    {
        var all: [CredentialInfo] = []
        var cursor: String?
        repeat {
            let page = try await (client ?? owner).call(
                .listAccess,
                ListAccessRequest(walletId: wallet.id, page: Page.optional(limit: limit, cursor: cursor), type: type),
                as: ListAccessResponse.self)
            all += page.credentials
            cursor = page.page?.hasMore == true ? page.page?.cursor : nil
        } while cursor != nil
        return all
    }

    /// Prepares and executes a native transfer of `value` wei within `session`.
    func send(_ remote: WaasClient, session: String, value: String, to: String = receiver) async throws
        -> TransactionStatusResponse
    {
        let prepared = try await remote.call(
            .prepareEthereumTransaction,
            PrepareEthereumTransactionRequest.nativeTransfer(
                walletId: wallet.id, network: Self.amoy, sessionId: session, to: to, value: value),
            as: PrepareEthereumTransactionResponse.self)
        return try await remote.call(
            .execute, ExecuteRequest(transactionId: prepared.transactionId), as: TransactionStatusResponse.self)
    }

    func usage(_ client: WaasClient, session: String) async throws -> [UsageEntry] {
        try await client.call(
            .getSessionUsage, GetSessionUsageRequest(sessionId: session, network: Self.amoy),
            as: GetSessionUsageResponse.self
        ).entries
    }

    /// The rows of every table access changes (wallet keys left out), to show a refusal changed nothing.
    func dump() async throws -> [String] {
        try await core.service.store.read { db in
            try ["credentials", "nonces", "access_grants", "session_usage", "transactions", "accounts"].flatMap {
                table in try db.dump(table: table).map { "\(table): \($0)" }
            }
        }
    }
}

/// Expects `body` to fail with the service error `code`.
func expectRefusal(
    _ code: WaasErrorCode, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record(
            "expected \(code), but the call succeeded \(comment.map { "(\($0))" } ?? "")",
            sourceLocation: sourceLocation)
    } catch let error as WaasError {
        #expect(error.code == code, "\(comment.map { "\($0): " } ?? "")\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
