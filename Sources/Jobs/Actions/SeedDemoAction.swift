import Foundation
import OMSProtocol
import Runner
import WalletCrypto

/// `demo.seed`: stages a realistic local data set through the same core, for the sweep and the usage
/// report: Ethereum and Solana wallets, extra sign-ins of the identity (some already expired), remote
/// credentials of three apps, sessions with native and ERC-20 grants (some expired, one revoked), and
/// transfers that bring some sessions near their limits.
///
/// Idempotent by a marker wallet (reference `demo-eth-1`): a seeded account is left as it is. The
/// staged transfers are written to `transfers` (CSV `session_id,grant_kind,token,to,amount`) so tests
/// can check the report's `used` against their sums.
public struct SeedDemoAction: Action {
    /// Where the staged transfers are listed; nil: not written.
    public let transfersPath: String?
    /// The signed-in session, opened on first use (extra direct sign-ins need its development issuer, which
    /// only the embedded core's session has).
    let session: @Sendable () throws -> JobSession

    /// An action seeding the account of `session()`.
    public init(transfersPath: String?, session: @escaping @Sendable () throws -> JobSession) {
        self.transfersPath = transfersPath
        self.session = session
    }

    public var name: String { "demo.seed" }
    public var isSideEffecting: Bool { true }

    /// The chain of the demo sessions: Polygon Amoy.
    public static let chainId = "80002"
    /// Receivers and the token of the demo grants (well-formed, unowned addresses).
    public static let payee = "0x1111111111111111111111111111111111111111"
    public static let vendor = "0x2222222222222222222222222222222222222222"
    public static let token = "0x3333333333333333333333333333333333333333"

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let session = try session()
        let owner = session.client
        let directory = try await WalletDirectory.load(client: owner)
        if await directory.wallet(reference: "demo-eth-1") != nil {
            return ActionResult(outputs: ["seeded": "already"])
        }
        var wallets: [Wallet] = []
        for (reference, family) in [
            ("demo-eth-1", NetworkFamily.evm), ("demo-eth-2", .evm), ("demo-eth-3", .evm), ("demo-sol-1", .solana),
            ("demo-sol-2", .solana),
        ] {
            wallets.append(
                try await owner.call(
                    .createWallet, CreateWalletRequest(networkFamily: family, reference: reference),
                    as: WalletResponse.self
                ).wallet)
        }

        // Extra direct credentials of the same identity: two live, two that expire in 2 s.
        if let email = session.credential.identity.email, session.connection.developmentIssuer != nil {
            let key = try PublishableKey(session.credential.publishableKey)
            for lifetime in [86_400, 3_600, 2, 2] {
                _ = try await SignIn.development(
                    email: email, connection: session.connection, publishableKey: key, lifetime: lifetime)
            }
        }

        // Remote credentials of three apps.
        var apps: [(name: String, client: WaasClient)] = []
        for (name, url) in [
            ("Payroll Bot", "https://payroll.example"), ("Treasury Sweeper", "https://treasury.example"),
            ("Game Server", "https://games.example"),
        ] {
            let client = owner.signing(with: EthereumRequestSigner(key: .generate()))
            _ = try await client.call(
                .registerCredential,
                RegisterCredentialRequest(
                    lifetime: 7 * 86_400, metadata: CredentialMetadata(appUrl: url, appName: name)),
                as: RegisterCredentialResponse.self)
            apps.append((name, client))
        }

        let now = Int64(Date().timeIntervalSince1970)
        let oneEther = "1000000000000000000"
        func authorize(_ app: WaasClient, wallet: Wallet, grants: [Grant], seconds: Int64) async throws -> String {
            try await owner.call(
                .authorizeRemoteAccess,
                AuthorizeRemoteAccessRequest(
                    credentialId: app.signer!.credentialId, walletId: wallet.id, grants: grants,
                    expiry: RFC3339.format(now + seconds), chainId: Self.chainId),
                as: AuthorizeRemoteAccessResponse.self
            ).sessionId
        }
        var transfers: [[String]] = []
        func send(
            _ app: WaasClient, wallet: Wallet, session: String, to: String, value: String? = nil, amount: String? = nil
        )
            async throws
        {
            let prepared = try await app.call(
                .prepareEthereumTransaction,
                PrepareEthereumTransactionRequest(
                    walletId: wallet.id, network: Self.chainId, sessionId: session, to: to, value: value,
                    token: amount == nil ? nil : Self.token, amount: amount),
                as: PrepareEthereumTransactionResponse.self)
            _ = try await app.call(
                .execute, ExecuteRequest(transactionId: prepared.transactionId), as: TransactionStatusResponse.self)
            transfers.append([
                session, amount == nil ? "nativeTransfer" : "erc20Transfer", amount == nil ? "" : Self.token, to,
                value ?? amount ?? "",
            ])
        }
        let native = Grant(kind: .nativeTransfer, nativeTransfer: NativeTransferGrant(to: Self.payee, limit: oneEther))
        let erc20 = Grant(
            kind: .erc20Transfer, erc20Transfer: ERC20TransferGrant(token: Self.token, limit: "1000000000"))
        let payroll = apps[0].client
        let treasury = apps[1].client
        let games = apps[2].client

        // Payroll: near its native limit (0.85 of 1 ether in two transfers) and a third of its ERC-20.
        let s1 = try await authorize(payroll, wallet: wallets[0], grants: [native, erc20], seconds: 86_400)
        try await send(payroll, wallet: wallets[0], session: s1, to: Self.payee, value: "600000000000000000")
        try await send(payroll, wallet: wallets[0], session: s1, to: Self.payee, value: "250000000000000000")
        try await send(payroll, wallet: wallets[0], session: s1, to: Self.vendor, amount: "333333333")
        // Treasury: at 95% of its ERC-20 allowance, on two wallets.
        let s2 = try await authorize(treasury, wallet: wallets[1], grants: [erc20], seconds: 86_400)
        try await send(treasury, wallet: wallets[1], session: s2, to: Self.vendor, amount: "950000000")
        let s3 = try await authorize(treasury, wallet: wallets[0], grants: [native], seconds: 86_400)
        try await send(treasury, wallet: wallets[0], session: s3, to: Self.payee, value: "1000000000000000")
        // Games: a small spend, a session that expires in 2 s, and a revoked one.
        let s4 = try await authorize(games, wallet: wallets[2], grants: [native, erc20], seconds: 86_400)
        try await send(games, wallet: wallets[2], session: s4, to: Self.payee, value: "12345")
        let s5 = try await authorize(games, wallet: wallets[1], grants: [native], seconds: 2)
        try await send(games, wallet: wallets[1], session: s5, to: Self.payee, value: "500000000000000000")
        // The revoked one spent before its revocation: the report still counts it (status revoked).
        let s6 = try await authorize(games, wallet: wallets[2], grants: [erc20], seconds: 86_400)
        try await send(games, wallet: wallets[2], session: s6, to: Self.vendor, amount: "250000000")
        _ = try await owner.call(
            .revokeAccess,
            RevokeAccessRequest(targetCredentialId: games.signer!.credentialId, walletId: wallets[2].id, sessionId: s6),
            as: OKResponse.self)

        if let transfersPath {
            try CSVFile.write(
                path: transfersPath, header: ["session_id", "grant_kind", "token", "to", "amount"], rows: transfers)
        }
        // Let the short-lived credential and session expire, so the sweep and the report see them so.
        try await Task.sleep(for: .seconds(3))
        return ActionResult(outputs: ["seeded": "now", "wallets": String(wallets.count), "sessions": "6"])
    }

    /// Re-run on resume: the marker wallet tells a seeded account.
    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome { .notDone }
}
