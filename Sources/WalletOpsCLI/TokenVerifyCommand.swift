import Foundation
import Jobs
import WalletCrypto

/// `walletops token verify`: checks an ID token as a relying party would and prints its claims.
struct TokenVerifyCommand: Command {
    static let token = ArgumentSpec("token", help: "The ID token (a compact JWT).")
    static let issuer = OptionSpec.option(
        "issuer", valueName: "url", help: "The issuer the token must name (iss).", required: true)
    static let audience = OptionSpec.option(
        "audience", valueName: "aud", help: "The audience the token must name (the project id).", required: true)
    static let jwks = OptionSpec.option(
        "jwks", valueName: "file", help: "A file holding the issuer's JWK Set.",
        defaultDescription: "GET <issuer>/.well-known/jwks.json")

    let configuration = CommandConfiguration(
        name: "verify", abstract: "Verify an ID token and print its claims as JSON.",
        discussion: """
            Checks the signature (ES256 only: 'none' and every other alg are refused) with the key its
            kid names, then iss, aud, exp and nbf (60 s of leeway) and a non-empty sub. Exit 0 and the
            claims on standard output when valid; exit 1 and the reason on standard error when not;
            exit 75 when the JWKS cannot be fetched.
            """,
        options: [Self.issuer, Self.audience, Self.jwks], arguments: [Self.token])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let issuer = arguments.value(Self.issuer)!
        let text: String
        if let path = arguments.value(Self.jwks) {
            text = try CoreCommandSupport.readFile(path, context, what: "JWKS file")
        } else {
            let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
            guard let url = URL(string: base + "/.well-known/jwks.json"), url.scheme == "http" || url.scheme == "https"
            else { throw CLIError.usage("--issuer must be an http(s) URL to fetch its JWKS; or give --jwks FILE") }
            let bytes = try await CoreCommandSupport.run { try await HTTPFetch.get(url) }
            text = String(decoding: bytes, as: UTF8.self)
        }
        let keys: JWKSet
        do {
            keys = try JWKSet(jsonString: text)
        } catch {
            throw CLIError.dataError("the issuer's JWKS does not parse: \(error)")
        }
        let jwt: JWT
        do {
            jwt = try JWT.verify(
                arguments.argument(Self.token)!, keys: keys,
                validation: JWT.Validation(issuer: issuer, audience: arguments.value(Self.audience)!, now: Date()))
        } catch {
            throw CLIError(.failure, "invalid token: \(error)")
        }
        guard let subject = jwt.subject, !subject.isEmpty else { throw CLIError(.failure, "invalid token: empty sub") }
        context.standardOutput.writeLine(JSONValue.object(jwt.claims).serialized())
        return ExitCode.success.rawValue
    }
}
