import Jobs
import OMSCore

/// `walletops jwks`: prints the ID-token issuer's JWK Set (what `/.well-known/jwks.json` serves).
struct JWKSCommand: Command {
    let configuration = CommandConfiguration(
        name: "jwks", abstract: "Print the ID-token issuer's JWK Set as JSON.",
        discussion: "From the home's core, or GET <core>/.well-known/jwks.json with --core.",
        options: CommonOptions.operatorOptions)

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = CoreCommandSupport.home(arguments, context)
        let document = try await CoreCommandSupport.run {
            try await CoreConnection.open(home: home, coreURL: arguments.coreURL, openHome: false).jwksDocument()
        }
        context.standardOutput.writeLine(String(decoding: document, as: UTF8.self))
        return ExitCode.success.rawValue
    }
}
