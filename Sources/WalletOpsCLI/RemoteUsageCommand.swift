import Jobs
import OMSProtocol
import WalletCrypto

/// `walletops remote usage`: what a session has spent per grant, and what remains (GetSessionUsage).
struct RemoteUsageCommand: Command {
    static let session = OptionSpec.option("session", valueName: "id", help: "The session (ses_...).", required: true)
    static let network = OptionSpec.option(
        "network", help: "The network, by name (polygonAmoy) or chain id (80002).", required: true)
    static let credential = OptionSpec.option(
        "credential", valueName: "address",
        help: "Ask as this remote credential (staged with 'remote register') instead of the wallet's owner.")

    static let headers = ["kind", "to", "token", "limit", "used", "remaining"]

    let configuration = CommandConfiguration(
        name: "usage", abstract: "Show a remote session's spending per grant.",
        discussion: """
            One row per grant, in the session's order: kind, to ('*' for an ERC-20 allowance shared by
            any receiver), token, limit, used, remaining. Amounts are exact decimal integers as the core
            keeps them (wei, or the token's smallest unit). Asked as the wallet's owner (the CLI's
            signed-in credential) unless --credential names the session's remote credential.
            """,
        options: CommonOptions.operatorOptions + [Self.session, Self.network, Self.credential, WalletTable.format])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let network = try RemoteAuthorizeCommand.network(arguments.value(Self.network)!)
        let request = GetSessionUsageRequest(sessionId: arguments.value(Self.session)!, network: network.wireChainId)
        let remote = try arguments.value(Self.credential).map {
            try RemoteCredentialFile.load(home: home, credentialId: $0)
        }
        let entries = try await CoreCommandSupport.run {
            let client =
                if let remote {
                    try remote.client(home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
                } else {
                    try CoreConnection.signedIn(
                        home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore
                    ).client
                }
            return try await client.call(.getSessionUsage, request, as: GetSessionUsageResponse.self).entries
        }
        let table = RecordTable(
            headers: Self.headers,
            rows: entries.map { entry in
                let grant = GrantText.columns(entry.grant)
                return [grant.kind, grant.to, grant.token, grant.limit, entry.used ?? "0", entry.remaining ?? ""]
            },
            objects: entries.map { entry in
                .object([
                    "grant": GrantText.json(entry.grant), "used": .string(entry.used ?? "0"),
                    "remaining": entry.remaining.map(JSONValue.string) ?? .null,
                ])
            })
        let format = arguments.choice(WalletTable.format, as: WalletTable.Format.self) ?? .table
        context.standardOutput.write(table.render(as: format))
        return ExitCode.success.rawValue
    }
}
