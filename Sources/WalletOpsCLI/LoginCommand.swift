import Foundation
import Jobs
import OMSCore
import OMSProtocol

/// `walletops login`: signs in with a fresh P-256 credential and stores it in `<home>/credential.json`.
struct LoginCommand: Command {
    static let dev = OptionSpec.flag("dev", help: "Sign in through the home's development OIDC issuer.")
    static let email = OptionSpec.option("email", valueName: "address", help: "The email address to sign in as.")
    static let idTokenFile = OptionSpec.option(
        "id-token-file", valueName: "file", help: "A file holding an OIDC provider's ID token.")
    static let otp = OptionSpec.flag("otp", help: "Sign in with an email one-time code.")
    static let codeStdin = OptionSpec.flag(
        "code-stdin", help: "With --otp: read the code from standard input, not the home's outbox.")
    static let lifetime = OptionSpec.option(
        "lifetime", valueName: "seconds", help: "The session lifetime.", type: .integer(min: 1, max: 2_592_000),
        defaultDescription: "604800")
    static let project = OptionSpec.option(
        "project", valueName: "name", help: "The project to sign in to.", defaultDescription: "the home's first project"
    )

    let configuration = CommandConfiguration(
        name: "login", abstract: "Sign in and store the credential in the home folder.",
        discussion: """
            One of: --dev --email E (a token from the home's development issuer); --id-token-file F (a
            provider's ID token, whose iss, aud and exp are committed); --otp --email E (a one-time code,
            read from <home>/outbox/ in development or from standard input with --code-stdin).

            The publishable key, and for --dev the development issuer's key, are read from the home,
            so the home is needed even with --core (the served core must be the home's core). The
            credential's private key is kept in <home>/credential.json (mode 0600) and never printed.
            """,
        options: CommonOptions.operatorOptions + [
            Self.dev, Self.email, Self.idTokenFile, Self.otp, Self.codeStdin, Self.lifetime, Self.project,
        ])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = CoreCommandSupport.home(arguments, context)
        let lifetime = arguments.integer(Self.lifetime)
        let email = arguments.value(Self.email)
        let modes = [arguments.flag(Self.dev), arguments.wasGiven(Self.idTokenFile), arguments.flag(Self.otp)]
        guard modes.filter({ $0 }).count == 1 else {
            throw CLIError.usage("give exactly one of --dev, --id-token-file, --otp")
        }
        if (arguments.flag(Self.dev) || arguments.flag(Self.otp)) && (email ?? "").isEmpty {
            throw CLIError.usage("--dev and --otp need --email")
        }
        let token = try arguments.value(Self.idTokenFile).map {
            try CoreCommandSupport.readFile($0, context, what: "ID token file", limit: 64 << 10)
        }
        let credential = try await CoreCommandSupport.run {
            let connection = try CoreConnection.open(home: home, coreURL: arguments.coreURL)
            let project = try await connection.project(named: arguments.value(Self.project))
            let key = try PublishableKey(project.publishableKey)
            if let token {
                return try await SignIn.idToken(token, connection: connection, publishableKey: key, lifetime: lifetime)
            }
            if arguments.flag(Self.dev) {
                return try await SignIn.development(
                    email: email!, connection: connection, publishableKey: key, lifetime: lifetime)
            }
            let fromStdin = arguments.flag(Self.codeStdin)
            return try await SignIn.emailOTP(
                email: email!, connection: connection, publishableKey: key, lifetime: lifetime
            ) { verifier in
                if fromStdin {
                    return String(decoding: try context.standardInput.readAll(limit: 256), as: UTF8.self)
                }
                return try SignIn.outboxCode(home: home, email: email!, verifier: verifier)
            }
        }
        try await CoreCommandSupport.run { try credential.save(home: home) }
        let who = credential.identity.email.map { "\($0) (\(credential.identity.sub))" } ?? credential.identity.sub
        context.standardOutput.writeLine("signed in as \(who)")
        context.standardOutput.writeLine("issuer: \(credential.identity.iss)")
        context.standardOutput.writeLine("project_id: \(credential.projectId)")
        context.standardOutput.writeLine("core: \(credential.core)")
        context.standardOutput.writeLine("expires: \(credential.expiresAt)")
        return ExitCode.success.rawValue
    }
}
