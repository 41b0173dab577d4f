import OMSProtocol
import WalletCrypto

/// `walletops remote sessions`: the sessions granted to a remote credential (ListSessions as that
/// credential, every page).
struct RemoteSessionsCommand: Command {
    static let credential = OptionSpec.option(
        "credential", valueName: "address", help: "The remote credential (staged with 'remote register').",
        required: true)

    static let headers = ["session_id", "wallet_id", "network", "expires_at", "grants"]

    let configuration = CommandConfiguration(
        name: "sessions", abstract: "List a remote credential's sessions.",
        discussion: """
            Columns: session_id, wallet_id, network (name and chain id), expires_at, grants (one summary
            per grant, '; '-separated). json: objects with sessionId, walletId, signerAddress, chainId,
            expiresAt and the grants as the wire carries them. Every page is fetched.
            """,
        options: CommonOptions.operatorOptions + [Self.credential, WalletTable.format])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let remote = try RemoteCredentialFile.load(home: home, credentialId: arguments.value(Self.credential)!)
        let sessions = try await CoreCommandSupport.run {
            let client = try remote.client(home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
            var all: [RemoteSession] = []
            var page: Page?
            repeat {
                let response = try await client.call(
                    .listSessions, ListSessionsRequest(page: page), as: ListSessionsResponse.self)
                all += response.sessions
                page = response.page.flatMap { $0.hasMore ? Page(limit: $0.limit, cursor: $0.cursor) : nil }
            } while page != nil
            return all
        }
        let table = RecordTable(
            headers: Self.headers,
            rows: sessions.map { session in
                [
                    session.sessionId, session.walletId, Self.networkText(session.chainId), session.expiresAt,
                    GrantText.summary(session.grants),
                ]
            },
            objects: sessions.map { session in
                .object([
                    "sessionId": .string(session.sessionId), "walletId": .string(session.walletId),
                    "signerAddress": .string(session.signerAddress), "chainId": .string(session.chainId),
                    "expiresAt": .string(session.expiresAt), "grants": .array(session.grants.map(GrantText.json)),
                ])
            })
        let format = arguments.choice(WalletTable.format, as: WalletTable.Format.self) ?? .table
        context.standardOutput.write(table.render(as: format))
        return ExitCode.success.rawValue
    }

    /// `polygonAmoy (80002)`, or the bare chain id of a network the CLI does not know.
    static func networkText(_ chainId: String) -> String {
        Network(nameOrChainId: chainId).map { "\($0.name) (\($0.chainId))" } ?? chainId
    }
}
