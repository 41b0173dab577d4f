import Jobs
import OMSProtocol
import WalletCrypto

/// `walletops access list`: who can act on a wallet: the account's direct credentials and the remote
/// sessions granted on it (ListAccess, every page).
struct AccessListCommand: Command {
    static let type = OptionSpec.option(
        "type", help: "Only credentials of this type.", type: .choice(["direct", "remote"]))

    static let headers = ["credential_id", "type", "session_id", "app_name", "expires_at", "is_caller", "grants"]

    let configuration = CommandConfiguration(
        name: "list", abstract: "List the credentials and remote sessions with access to a wallet.",
        discussion: """
            One row per direct credential and one per remote session (a remote credential with two
            sessions has two rows). Columns: credential_id, type, session_id (remote only), app_name,
            expires_at, is_caller (true for the CLI's own credential), grants (remote: one summary per
            grant, '; '-separated). json: an array of objects with credentialId, type, sessionId,
            appName, expiresAt, isCaller and the grants as the wire carries them. Every page is fetched.
            """,
        options: CommonOptions.operatorOptions + [WalletChoice.option, Self.type, WalletTable.format])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let type = arguments.value(Self.type).map { CredentialType(wire: $0) }
        let credentials = try await CoreCommandSupport.run {
            let (_, stored, client) = try CoreConnection.signedIn(
                home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
            let walletId = try await WalletChoice.resolve(
                arguments.value(WalletChoice.option), credential: stored, client: client)
            var all: [CredentialInfo] = []
            var page: Page?
            repeat {
                let response = try await client.call(
                    .listAccess, ListAccessRequest(walletId: walletId, page: page, type: type),
                    as: ListAccessResponse.self)
                all += response.credentials
                page = response.page.flatMap { $0.hasMore ? Page(limit: $0.limit, cursor: $0.cursor) : nil }
            } while page != nil
            return all
        }
        let format = arguments.choice(WalletTable.format, as: WalletTable.Format.self) ?? .table
        context.standardOutput.write(Self.table(credentials).render(as: format))
        return ExitCode.success.rawValue
    }

    static func table(_ credentials: [CredentialInfo]) -> RecordTable {
        RecordTable(
            headers: headers,
            rows: credentials.map { info in
                [
                    info.credentialId, info.type.rawValue, info.sessionId ?? "", info.metadata?.appName ?? "",
                    info.expiresAt, info.isCaller ? "true" : "false", GrantText.summary(info.grants),
                ]
            },
            objects: credentials.map { info in
                .object([
                    "credentialId": .string(info.credentialId), "type": .string(info.type.rawValue),
                    "sessionId": info.sessionId.map(JSONValue.string) ?? .null,
                    "appName": info.metadata.map { JSONValue.string($0.appName) } ?? .null,
                    "expiresAt": .string(info.expiresAt), "isCaller": .bool(info.isCaller),
                    "grants": .array((info.grants ?? []).map(GrantText.json)),
                ])
            })
    }
}
