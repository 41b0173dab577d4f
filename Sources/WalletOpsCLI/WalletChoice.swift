import Jobs
import OMSProtocol

/// Which wallet a command acts on when `--wallet` is left out: the CLI's active wallet (`walletops
/// wallet use`), else the account's only wallet; with several and none active, a usage error that
/// names the choices.
enum WalletChoice {
    /// `--wallet <id>`, shared by the commands that act on one wallet.
    static let option = OptionSpec.option(
        "wallet", valueName: "id", help: "The wallet (wal_...).",
        defaultDescription: "the active wallet ('wallet use'), else the only wallet")

    /// The wallet id to use.
    static func resolve(_ given: String?, credential: StoredCredential, client: WaasClient) async throws -> String {
        if let given, !given.isEmpty { return given }
        if let active = credential.activeWallet { return active }
        let wallets = try await CoreConnection.allWallets(client)
        switch wallets.count {
        case 0:
            throw CLIError(.failure, "the account has no wallet: create one with 'walletops wallet create'")
        case 1:
            return wallets[0].id
        default:
            let choices = wallets.map { "\($0.id) (\($0.walletType.rawValue) \($0.address))" }
            throw CLIError.usage(
                "several wallets and none active: give --wallet with one of \(choices.joined(separator: ", ")), "
                    + "or choose one with 'walletops wallet use ID'")
        }
    }
}
