import Jobs

/// `walletops wallet list`: every wallet of the signed-in account, all pages.
struct WalletListCommand: Command {
    let configuration = CommandConfiguration(
        name: "list", abstract: "List the signed-in account's wallets.",
        discussion: """
            table: aligned columns under a header. csv: the header id,type,address,reference,key_origin
            then one line per wallet (RFC 4180 quoting). json: an array of objects with id, type,
            address, reference (null when unset) and keyOrigin. Every page is fetched.
            """,
        options: CommonOptions.operatorOptions + [WalletTable.format])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let wallets = try await CoreCommandSupport.run {
            let (_, _, client) = try CoreConnection.signedIn(
                home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
            return try await CoreConnection.allWallets(client)
        }
        let format = arguments.choice(WalletTable.format, as: WalletTable.Format.self) ?? .table
        context.standardOutput.write(WalletTable.render(wallets, as: format))
        return ExitCode.success.rawValue
    }
}
