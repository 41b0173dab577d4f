import Foundation
import HomeLayout
import OMSCore
import OMSProtocol
import WalletCrypto

/// `walletops-bench stage --home H --wallets W --sessions S [--email E] [--transfers T]`: stages remote
/// access in a walletops home (made by `walletops core init`, signed in by `walletops login --dev`) for
/// the sweep and usage-report cases, through the core's API as clients would: W Ethereum wallets of the
/// identity, 8 remote credentials, S sessions (AuthorizeRemoteAccess: one native-transfer grant each,
/// wallet `i % W`, remote `i % 8`) and T transfers within sessions (usage to report).
///
/// The fastest honest way: in-process transport to the home's core, 8 owner credentials of the same
/// identity (each a sign-in of its own, so requests of different owners never wait on one nonce
/// sequence) authorizing at once. Prints "stage<TAB>sessions<TAB>seconds<TAB>sessions_per_s".
enum StageBench {
    static let owners = 8
    static let remotes = 8
    static let amoy = Network.polygonAmoy.wireChainId
    static let receiver = "0x2222222222222222222222222222222222222222"

    static func text(_ name: String, in arguments: [String]) -> String? {
        arguments.firstIndex(of: name).flatMap { arguments.dropFirst($0 + 1).first }
    }

    static func run(_ arguments: [String]) async throws -> String {
        guard let homePath = text("--home", in: arguments) else { throw BenchError("stage: --home is required") }
        let walletCount = AccessBench.option("--wallets", in: arguments) ?? 100
        let sessionCount = AccessBench.option("--sessions", in: arguments) ?? 1_000
        let transfers = AccessBench.option("--transfers", in: arguments) ?? 0
        let email = text("--email", in: arguments) ?? "ops@example.com"
        let home = WalletHome(url: URL(fileURLWithPath: homePath))
        let service = try WaasService.open(home: home, storeTuning: BenchTuning.current.coreStore)
        guard let project = try await service.projects().first else {
            throw BenchError("stage: the home has no project")
        }
        let publishableKey = try PublishableKey(project.publishableKey)
        let transport = InProcessTransport(handler: service)
        let start = Measure.now()
        let owners = try await CoreBench.signIn(
            service: service, publishableKey: publishableKey, transport: transport, count: owners, email: email)

        // Wallets, created by the owners at once.
        let wallets = try await withThrowingTaskGroup(of: [String].self) { group in
            for (index, owner) in owners.enumerated() {
                group.addTask {
                    // CreateWallets batches of up to 1,000 (a 100,000-wallet account stages in seconds).
                    var ids: [String] = []
                    let mine = Array(stride(from: index, to: walletCount, by: owners.count))
                    for start in stride(from: 0, to: mine.count, by: CreateWalletsRequest.maxReferences) {
                        let references = mine[start..<min(mine.count, start + CreateWalletsRequest.maxReferences)]
                            .map { "stage-\($0)" }
                        ids += try await owner.createWallets(networkFamily: .evm, references: references).map(
                            \.wallet.id)
                    }
                    return ids
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }

        var remoteClients: [WaasClient] = []
        for index in 0..<remotes {
            let client = WaasClient(
                transport: transport, publishableKey: publishableKey,
                signer: EthereumRequestSigner(key: .generate()))
            _ = try await client.call(
                .registerCredential,
                RegisterCredentialRequest(
                    lifetime: 30 * 86_400,
                    metadata: CredentialMetadata(
                        appUrl: "https://bench\(index % 2).example", appName: "Bench \(index % 2)")),
                as: RegisterCredentialResponse.self)
            remoteClients.append(client)
        }
        let remoteIds = remoteClients.map { $0.signer!.credentialId }
        let expiry = RFC3339.format(service.now + 7 * 86_400)
        let authorizeStart = Measure.now()
        // Session i: wallet i % W, remote i % 8, authorized by owner i % 8 (one request in flight each).
        let firstSessions = try await withThrowingTaskGroup(of: [(Int, String, String)].self) { group in
            for (index, owner) in owners.enumerated() {
                group.addTask {
                    var first: [(Int, String, String)] = []
                    for session in stride(from: index, to: sessionCount, by: owners.count) {
                        let wallet = wallets[session % wallets.count]
                        let id = try await owner.call(
                            .authorizeRemoteAccess,
                            AuthorizeRemoteAccessRequest(
                                credentialId: remoteIds[session % remoteIds.count], walletId: wallet,
                                grants: [.nativeTransfer(to: receiver, limit: "1000000000000000000")], expiry: expiry,
                                chainId: amoy),
                            as: AuthorizeRemoteAccessResponse.self
                        ).sessionId
                        if session < remoteIds.count { first.append((session, wallet, id)) }
                    }
                    return first
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let authorizeSeconds = (Measure.now() - authorizeStart) / 1e6

        // Transfers: each remote spends within its first session.
        let spenders = remoteClients
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (remote, wallet, session) in firstSessions {
                let client = spenders[remote]
                group.addTask {
                    for _ in stride(from: remote, to: transfers, by: spenders.count) {
                        let prepared = try await client.call(
                            .prepareEthereumTransaction,
                            PrepareEthereumTransactionRequest.nativeTransfer(
                                walletId: wallet, network: amoy, sessionId: session, to: receiver, value: "1000"),
                            as: PrepareEthereumTransactionResponse.self)
                        _ = try await client.call(
                            .execute, ExecuteRequest(transactionId: prepared.transactionId),
                            as: TransactionStatusResponse.self)
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = (Measure.now() - start) / 1e6
        return String(
            format: "stage\t%d\t%.2f\t%.0f\t%d wallets, %d sessions (AuthorizeRemoteAccess at %.0f/s, 8 owners), "
                + "%d transfers, %.1f s in all",
            sessionCount, seconds, Double(sessionCount) / authorizeSeconds, wallets.count, sessionCount,
            Double(sessionCount) / authorizeSeconds, transfers, seconds)
    }
}
