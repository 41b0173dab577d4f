import Foundation
import Jobs
import OMSCore
import WalletCrypto

/// `walletops core trust-issuer`: lets a project's users sign in with an OIDC provider's ID tokens.
struct CoreTrustIssuerCommand: Command {
    static let issuer = OptionSpec.option(
        "issuer", valueName: "url", help: "The provider's issuer (the tokens' iss).", required: true)
    static let jwks = OptionSpec.option(
        "jwks", valueName: "file", help: "A file holding the provider's JWK Set (or use --jwks-from-pem).")
    static let jwksFromPEM = OptionSpec.option(
        "jwks-from-pem", valueName: "file",
        help:
            "A PEM file of the issuer's key (PKCS#8 PRIVATE KEY or PUBLIC KEY; EC P-256 or RSA): its public key is trusted under --kid."
    )
    static let kid = OptionSpec.option(
        "kid", valueName: "kid", help: "The key id the issuer's tokens name (with --jwks-from-pem).")
    static let audience = OptionSpec.option(
        "audience", valueName: "aud", help: "The audience the tokens must carry (aud).", required: true)
    static let project = OptionSpec.option(
        "project", valueName: "name", help: "The project.", defaultDescription: "the home's first project")

    let configuration = CommandConfiguration(
        name: "trust-issuer", abstract: "Trust an OIDC issuer's ID tokens for sign-in to a project.",
        discussion: """
            Trusting the same issuer and audience again replaces its keys. The keys come from a JWK Set file
            (--jwks) or from the public key of a PEM file (--jwks-from-pem FILE --kid K: an app-owned issuer
            whose private key signs its users' ID tokens, ES256 for EC P-256, RS256 for RSA; only the public
            key is kept, nothing of the file is printed).
            """,
        options: CommonOptions.operatorOptions + [
            Self.issuer, Self.jwks, Self.jwksFromPEM, Self.kid, Self.audience, Self.project,
        ])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        try CoreCommandSupport.requireEmbedded(arguments, "core trust-issuer")
        let home = arguments.home(in: context)
        let jwks = try Self.keys(arguments, context)
        let issuer = arguments.value(Self.issuer)!
        let audience = arguments.value(Self.audience)!
        let project = try await CoreCommandSupport.run {
            let core = try CoreCommandSupport.embeddedCore(home, tuning: context.tuning.coreStore)
            let project = try await CoreCommandSupport.project(named: arguments.value(Self.project), in: core)
            try await core.service.trustIssuer(
                project: project.id, issuer: issuer, audience: audience, jwks: jwks)
            return project
        }
        context.standardOutput.writeLine(
            "trusted \(issuer) (audience \(audience), \(jwks.keys.count) keys) for \(project.id)")
        if arguments.value(Self.jwksFromPEM) != nil {
            // The key made from the PEM file: its kid and algorithm (public facts, nothing of the file).
            for key in jwks.keys {
                context.standardOutput.writeLine("  kid \(key.kid ?? "-") \(key.kty) \(key.alg ?? "")")
            }
        }
        return ExitCode.success.rawValue
    }

    /// The JWK Set of `--jwks`, or the public key of `--jwks-from-pem` under `--kid` (exactly one of them).
    static func keys(_ arguments: ParsedArguments, _ context: Context) throws -> JWKSet {
        switch (arguments.value(jwks), arguments.value(jwksFromPEM)) {
        case (let path?, nil):
            guard arguments.value(kid) == nil else { throw CLIError.usage("--kid goes with --jwks-from-pem") }
            let text = try CoreCommandSupport.readFile(path, context, what: "JWKS file")
            do {
                return try JWKSet(jsonString: text)
            } catch {
                throw CLIError.dataError("JWKS file \(path): \(error)")
            }
        case (nil, let path?):
            guard let kid = arguments.value(kid), !kid.isEmpty else {
                throw CLIError.usage("--jwks-from-pem needs --kid (the kid the issuer's tokens carry)")
            }
            let url = context.fileURL(path)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw CLIError.ioError("cannot read the PEM file \(path)")
            }
            var bytes = [UInt8](data)
            defer { for index in bytes.indices { bytes[index] = 0 } }
            do {
                return try AppIssuer.jwks(pem: bytes, kid: kid, source: path)
            } catch let error as JobsError {
                throw CLIError.dataError(error.message)
            }
        default:
            throw CLIError.usage(
                "give the issuer's keys with exactly one of --jwks FILE or --jwks-from-pem FILE --kid K")
        }
    }
}
