import Foundation
import Jobs
import OMSCore

/// `walletops jwks`: prints the ID-token issuer's JWK Set (what `/.well-known/jwks.json` serves).
struct JWKSCommand: Command {
    let configuration = CommandConfiguration(
        name: "jwks", abstract: "Print the ID-token issuer's JWK Set as JSON.",
        discussion: "From the home's core, or GET <core>/.well-known/jwks.json with --core; members in sorted order.",
        options: CommonOptions.operatorOptions)

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let document: [UInt8] = try await CoreCommandSupport.run {
            if let coreURL = arguments.coreURL {
                return try await HTTPFetch.get(coreURL.appendingPathComponent(".well-known/jwks.json"))
            }
            return try await CoreCommandSupport.embeddedCore(home, tuning: context.tuning.coreStore).service
                .wellKnownJWKS()
        }
        context.standardOutput.writeLine(try Self.canonical(document))
        return ExitCode.success.rawValue
    }

    /// The document with its members sorted, so the same keys always print the same text.
    static func canonical(_ document: [UInt8]) throws -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(document)),
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { throw CLIError(.failure, "the core's JWKS is not JSON") }
        return String(decoding: data, as: UTF8.self)
    }
}
