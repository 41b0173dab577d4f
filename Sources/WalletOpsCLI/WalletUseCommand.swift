import Jobs
import OMSProtocol

/// `walletops wallet use`: makes a wallet the CLI's active one (used by `token issue` without --wallet).
struct WalletUseCommand: Command {
    static let wallet = ArgumentSpec("wallet-id", help: "The wallet's id (wal_...).")

    let configuration = CommandConfiguration(
        name: "use", abstract: "Make a wallet the active one for later commands.",
        discussion: "The core checks the wallet is yours (UseWallet); the choice is kept in <home>/credential.json.",
        options: CommonOptions.operatorOptions, arguments: [Self.wallet])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let id = arguments.argument(Self.wallet)!
        let wallet = try await CoreCommandSupport.run {
            var (_, credential, client) = try CoreConnection.signedIn(
                home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
            let wallet = try await client.call(.useWallet, UseWalletRequest(walletId: id), as: WalletResponse.self)
                .wallet
            credential.activeWallet = wallet.id
            try credential.save(home: home)
            return wallet
        }
        context.standardOutput.writeLine(
            "active wallet: \(wallet.id) (\(wallet.walletType.rawValue) \(wallet.address))")
        return ExitCode.success.rawValue
    }
}
