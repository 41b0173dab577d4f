import Jobs
import OMSProtocol
import WalletCrypto

/// `walletops token issue`: an ID token (ES256 JWT) for a wallet, printed alone on standard output.
struct TokenIssueCommand: Command {
    static let wallet = OptionSpec.option(
        "wallet", valueName: "id", help: "The wallet the token is about (its sub).",
        defaultDescription: "the wallet chosen with 'wallet use'")
    static let ttl = OptionSpec.option(
        "ttl", valueName: "seconds", help: "The token's lifetime.", type: .integer(min: 60, max: 86_400),
        defaultDescription: "600")
    static let claim = OptionSpec.option(
        "claim", valueName: "key=value", help: "A custom claim (repeatable).", type: .keyValue, repeating: true)

    let configuration = CommandConfiguration(
        name: "issue", abstract: "Issue an ID token for a wallet and print it.",
        discussion: """
            The token is signed by the core's issuer (ES256) with iss, sub (the wallet id), aud (the
            project id), exp, iat, jti, wallet_address, wallet_type, email when verified, and the custom
            claims. A --claim value is a JSON number or boolean when it parses as one (--claim tier=3,
            --claim beta=true), else a string; registered names and the wallet_ prefix are refused by
            the core. The lifetime never passes the session's expiry.
            """,
        options: CommonOptions.operatorOptions + [Self.wallet, Self.ttl, Self.claim])

    /// A claim value: a JSON number or boolean when the text is one, else the text as a string.
    static func claimValue(_ text: String) -> JSONValue {
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if let parsed = try? JSONValue.parse(text), case .int = parsed { return parsed }
        if let parsed = try? JSONValue.parse(text), case .double = parsed { return parsed }
        return .string(text)
    }

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        var claims: [String: JSONValue] = [:]
        for (key, value) in arguments.keyValues(Self.claim) { claims[key] = Self.claimValue(value) }
        let custom = claims
        let token = try await CoreCommandSupport.run {
            let (_, credential, client) = try CoreConnection.signedIn(
                home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
            guard let walletId = arguments.value(Self.wallet) ?? credential.activeWallet else {
                throw CLIError(.failure, "no wallet: give --wallet ID or choose one with 'walletops wallet use ID'")
            }
            return try await client.call(
                .getIDToken,
                GetIDTokenRequest(
                    walletId: walletId, ttlSeconds: arguments.integer(Self.ttl),
                    customClaims: custom.isEmpty ? nil : custom),
                as: GetIDTokenResponse.self
            ).idToken
        }
        context.standardOutput.writeLine(token)
        return ExitCode.success.rawValue
    }
}
