import Jobs
import KeyFormats
import OMSProtocol

/// `walletops wallet create`: a new wallet whose key is made and kept by the core.
struct WalletCreateCommand: Command {
    static let type = OptionSpec.option(
        "type", short: "t", help: "The kind of wallet.", type: .choice(KeyType.choices), default: "ethereum")
    static let reference = OptionSpec.option(
        "reference", valueName: "text", help: "Your reference for the wallet (at most 128 UTF-8 bytes).")

    let configuration = CommandConfiguration(
        name: "create", abstract: "Create a wallet and print it.",
        discussion: """
            Prints the wallet as 'wallet list' does, then the wallet id alone on the last line, for
            scripts: id=$(walletops wallet create | tail -n 1).
            """,
        options: CommonOptions.operatorOptions + [Self.type, Self.reference, WalletTable.format])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let family = NetworkFamily(arguments.choice(Self.type, as: KeyType.self) ?? .ethereum)
        let wallet = try await CoreCommandSupport.run {
            let (_, _, client) = try CoreConnection.signedIn(
                home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
            return try await client.call(
                .createWallet, CreateWalletRequest(networkFamily: family, reference: arguments.value(Self.reference)),
                as: WalletResponse.self
            ).wallet
        }
        let format = arguments.choice(WalletTable.format, as: WalletTable.Format.self) ?? .table
        context.standardOutput.write(WalletTable.render([wallet], as: format))
        context.standardOutput.writeLine(wallet.id)
        return ExitCode.success.rawValue
    }
}
