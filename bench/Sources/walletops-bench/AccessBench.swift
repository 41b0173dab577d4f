import Foundation
import OMSCore
import OMSProtocol
import WalletCrypto

/// `walletops-bench access`: remote access (issue 4) at scale. ListAccess over a wallet with 10,000 grants
/// (every page of 100), GetSessionUsage, and transfers (PrepareEthereumTransaction + Execute within a
/// session), embedded and over HTTP. The data is staged through the protocol, as a client would.
enum AccessBench {
    static let amoy = Network.polygonAmoy.wireChainId
    static let receiver = "0x1111111111111111111111111111111111111111"
    static let pageSize = 100

    /// A core with two wallets: `listed`, authorized `grants` times to one remote credential, and
    /// `spending`, with one session per remote client.
    struct World {
        let core: CoreBench.Core
        let owners: [WaasClient]
        let listed: String
        let spending: String
        let remotes: [(client: WaasClient, session: String)]
        /// AuthorizeRemoteAccess calls per second while staging (8 owner credentials at once).
        let authorizationsPerSecond: Double

        static func stage(grants: Int) async throws -> World {
            let core = try CoreBench.Core()
            let transport = InProcessTransport(handler: core.service)
            let owners = try await core.clients(transport, count: CoreBench.clientCount)
            func wallet() async throws -> String {
                try await owners[0].call(
                    .createWallet, CreateWalletRequest(networkFamily: .evm), as: WalletResponse.self
                ).wallet.id
            }
            let listed = try await wallet()
            let spending = try await wallet()
            let expiry = RFC3339.format(core.service.now + 3600)
            func remote() async throws -> WaasClient {
                let client = WaasClient(
                    transport: transport, publishableKey: core.publishableKey,
                    signer: EthereumRequestSigner(key: .generate()))
                _ = try await client.call(
                    .registerCredential,
                    RegisterCredentialRequest(
                        lifetime: 86_400,
                        metadata: CredentialMetadata(appUrl: "https://bench.example", appName: "Bench")),
                    as: RegisterCredentialResponse.self)
                return client
            }
            @Sendable func authorize(_ owner: WaasClient, _ remote: String, wallet: String, limit: String) async throws
                -> String
            {
                try await owner.call(
                    .authorizeRemoteAccess,
                    AuthorizeRemoteAccessRequest(
                        credentialId: remote, walletId: wallet, grants: [.nativeTransfer(to: receiver, limit: limit)],
                        expiry: expiry, chainId: amoy),
                    as: AuthorizeRemoteAccessResponse.self
                ).sessionId
            }
            // Each new authorization of the same credential is a session of its own: one listed grant each.
            let lister = try await remote().signer!.credentialId
            precondition(grants % owners.count == 0, "grants must be a multiple of \(owners.count)")
            let authorizationsPerSecond = try await CoreBench.rate(owners, total: grants - owners.count) { owner in
                _ = try await authorize(owner, lister, wallet: listed, limit: "1000")
            }
            var remotes: [(WaasClient, String)] = []
            for _ in 0..<CoreBench.clientCount {
                let client = try await remote()
                remotes.append(
                    (
                        client,
                        try await authorize(
                            owners[0], client.signer!.credentialId, wallet: spending, limit: "1000000000")
                    ))
            }
            return World(
                core: core, owners: owners, listed: listed, spending: spending, remotes: remotes,
                authorizationsPerSecond: authorizationsPerSecond)
        }

        /// The same credential (same key, same nonce source) speaking through another transport.
        static func on(_ transport: any WaasTransport, _ client: WaasClient) -> WaasClient {
            WaasClient(
                transport: transport, publishableKey: client.publishableKey, signer: client.signer,
                nonces: client.nonces)
        }

        /// Walks every page of ListAccess for the listed wallet's remote grants; returns (pages, grants).
        func listAll(_ owner: WaasClient) async throws -> (pages: Int, grants: Int) {
            var pages = 0
            var grants = 0
            var cursor: String?
            repeat {
                let page = try await owner.call(
                    .listAccess,
                    ListAccessRequest(
                        walletId: listed, page: Page.optional(limit: AccessBench.pageSize, cursor: cursor),
                        type: .remote),
                    as: ListAccessResponse.self)
                pages += 1
                grants += page.credentials.count
                cursor = page.page?.hasMore == true ? page.page?.cursor : nil
            } while cursor != nil
            return (pages, grants)
        }
    }

    /// Items per second of one full ListAccess walk by each owner at once; returns (pages/s, grants/s).
    static func listRate(_ world: World, _ owners: [WaasClient], expected: Int) async throws -> (
        Double, Double
    ) {
        let start = Measure.now()
        let totals = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for owner in owners {
                group.addTask {
                    let walk = try await world.listAll(owner)
                    precondition(walk.grants == expected, "ListAccess listed \(walk.grants) of \(expected) grants")
                    return (walk.pages, walk.grants)
                }
            }
            return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        let seconds = (Measure.now() - start) / 1e6
        return (Double(totals.0) / seconds, Double(totals.1) / seconds)
    }

    /// The value of `--name N` in `arguments`, if any.
    static func option(_ name: String, in arguments: [String]) -> Int? {
        arguments.firstIndex(of: name).flatMap { arguments.dropFirst($0 + 1).first }.flatMap { Int($0) }
    }

    /// The `access` case's section: `--grants N` (default 10,000, a multiple of 8).
    static func run(_ arguments: [String]) async throws -> String {
        let grants = option("--grants", in: arguments) ?? 10_000
        return
            "## Remote access (issue 4): \(grants) grants listed, pages of \(pageSize); 8 clients where concurrent\n\n"
            + (try await run(grants: grants))
    }

    static func run(grants: Int, transfers: Int = 1_000, usageCalls: Int = 2_000) async throws -> String {
        let world = try await World.stage(grants: grants)
        defer { try? FileManager.default.removeItem(at: world.core.home.url) }
        let transports: [(String, any WaasTransport)] = [
            ("in-process", InProcessTransport(handler: world.core.service)),
            ("HTTP", HTTPTransport(baseURL: world.core.server.baseURL, maxConnections: CoreBench.clientCount)),
        ]
        let pages = (grants + pageSize - 1) / pageSize
        var table = Table(header: ["case", "transport", "clients", "req/s", "items/s", "items", "CPU us/req"])
        // CPU of the whole process (clients, core, server) per request since `start`.
        func cpu(since start: Double, requests: Int) -> String {
            format((CPUTime.process() - start) / Double(requests), digits: 0)
        }
        for (name, transport) in transports {
            let owners = world.owners.map { World.on(transport, $0) }
            _ = try await world.listAll(owners[0])  // warm-up: statement cache, connections
            for clients in [1, CoreBench.clientCount] {
                let cpuStart = CPUTime.process()
                let (pagesPerSecond, grantsPerSecond) = try await listRate(
                    world, Array(owners.prefix(clients)), expected: grants)
                table.add([
                    "ListAccess, \(pages) pages of \(pageSize)", name, "\(clients)", format(pagesPerSecond, digits: 0),
                    format(grantsPerSecond, digits: 0), "grants",
                    cpu(since: cpuStart, requests: pages * clients),
                ])
            }
            let remotes = world.remotes.map { World.on(transport, $0.client) }
            let sessions = Dictionary(
                uniqueKeysWithValues: world.remotes.map { ($0.client.signer!.credentialId, $0.session) })
            var cpuStart = CPUTime.process()
            let usage = try await CoreBench.rate(remotes, total: usageCalls) { remote in
                let entries = try await remote.call(
                    .getSessionUsage,
                    GetSessionUsageRequest(sessionId: sessions[remote.signer!.credentialId]!, network: amoy),
                    as: GetSessionUsageResponse.self
                ).entries
                precondition(entries.count == 1)
            }
            table.add([
                "GetSessionUsage", name, "\(remotes.count)", format(usage, digits: 0), format(usage, digits: 0),
                "reads", cpu(since: cpuStart, requests: usageCalls + remotes.count),
            ])
            cpuStart = CPUTime.process()
            let spending = world.spending
            let transfersPerSecond = try await CoreBench.rate(remotes, total: transfers) { remote in
                let prepared = try await remote.call(
                    .prepareEthereumTransaction,
                    PrepareEthereumTransactionRequest.nativeTransfer(
                        walletId: spending, network: amoy, sessionId: sessions[remote.signer!.credentialId]!,
                        to: receiver, value: "1"),
                    as: PrepareEthereumTransactionResponse.self)
                _ = try await remote.call(
                    .execute, ExecuteRequest(transactionId: prepared.transactionId), as: TransactionStatusResponse.self)
            }
            table.add([
                "Prepare + Execute transfer", name, "\(remotes.count)", format(2 * transfersPerSecond, digits: 0),
                format(transfersPerSecond, digits: 0), "transfers",
                cpu(since: cpuStart, requests: 2 * (transfers + remotes.count)),
            ])
        }
        await world.core.server.stop(grace: .seconds(1))
        let note = String(
            format: "staged through the protocol: %d AuthorizeRemoteAccess by 8 owner credentials at %.0f/s; "
                + "peak RSS %.0f MiB; %d cores",
            grants, world.authorizationsPerSecond, Measure.peakRSSMiB(), ProcessInfo.processInfo.activeProcessorCount)
        return table.render() + "\n\n" + note
    }
}
