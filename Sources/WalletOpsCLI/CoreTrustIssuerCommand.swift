import Jobs
import OMSCore
import WalletCrypto

/// `walletops core trust-issuer`: lets a project's users sign in with an OIDC provider's ID tokens.
struct CoreTrustIssuerCommand: Command {
    static let issuer = OptionSpec.option(
        "issuer", valueName: "url", help: "The provider's issuer (the tokens' iss).", required: true)
    static let jwks = OptionSpec.option(
        "jwks", valueName: "file", help: "A file holding the provider's JWK Set.", required: true)
    static let audience = OptionSpec.option(
        "audience", valueName: "aud", help: "The audience the tokens must carry (aud).", required: true)
    static let project = OptionSpec.option(
        "project", valueName: "name", help: "The project.", defaultDescription: "the home's first project")

    let configuration = CommandConfiguration(
        name: "trust-issuer", abstract: "Trust an OIDC issuer's ID tokens for sign-in to a project.",
        discussion: "Trusting the same issuer and audience again replaces its keys.",
        options: CommonOptions.operatorOptions + [Self.issuer, Self.jwks, Self.audience, Self.project])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        try CoreCommandSupport.requireEmbedded(arguments, "core trust-issuer")
        let home = CoreCommandSupport.home(arguments, context)
        let path = arguments.value(Self.jwks)!
        let text = try CoreCommandSupport.readFile(path, context, what: "JWKS file")
        let jwks: JWKSet
        do {
            jwks = try JWKSet(jsonString: text)
        } catch {
            throw CLIError.dataError("JWKS file \(path): \(error)")
        }
        let issuer = arguments.value(Self.issuer)!
        let audience = arguments.value(Self.audience)!
        let project = try await CoreCommandSupport.run {
            let connection = try CoreConnection.open(home: home, coreURL: nil)
            let project = try await connection.project(named: arguments.value(Self.project))
            try await connection.service!.trustIssuer(
                project: project.id, issuer: issuer, audience: audience, jwks: jwks)
            return project
        }
        context.standardOutput.writeLine(
            "trusted \(issuer) (audience \(audience), \(jwks.keys.count) keys) for \(project.id)")
        return ExitCode.success.rawValue
    }
}
