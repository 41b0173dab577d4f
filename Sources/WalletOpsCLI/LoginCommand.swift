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
    static let issuerKeyFile = OptionSpec.option(
        "issuer-key-file", valueName: "file",
        help:
            "An app-owned OIDC issuer's private key (PEM, EC P-256 or RSA) that the project trusts: sign in with a short-lived ID token minted with it (unattended hosts)."
    )
    static let issuer = OptionSpec.option(
        "issuer", valueName: "url", help: "With --issuer-key-file: the tokens' iss, as 'core trust-issuer' trusts it.")
    static let audience = OptionSpec.option(
        "audience", valueName: "aud", help: "With --issuer-key-file: the tokens' aud.")
    static let kid = OptionSpec.option("kid", valueName: "kid", help: "With --issuer-key-file: the key's kid.")
    static let subject = OptionSpec.option(
        "subject", valueName: "sub", help: "With --issuer-key-file: who signs in (the tokens' sub; one account).")
    static let otp = OptionSpec.flag("otp", help: "Sign in with an email one-time code.")
    static let codeStdin = OptionSpec.flag(
        "code-stdin", help: "With --otp: read the code from standard input, not the home's outbox.")
    static let lifetime = OptionSpec.option(
        "lifetime", valueName: "seconds", help: "The session lifetime.", type: .integer(min: 1, max: 2_592_000),
        defaultDescription: "604800")
    static let project = OptionSpec.option(
        "project", valueName: "name", help: "The project to sign in to.", defaultDescription: "the home's first project"
    )
    static let publishableKey = OptionSpec.option(
        "publishable-key", valueName: "pk_...",
        help: "The project's publishable key, to sign in to a served core from a home without a core.",
        defaultDescription: "$WALLETOPS_PUBLISHABLE_KEY, else the home's project")

    let configuration = CommandConfiguration(
        name: "login", abstract: "Sign in and store the credential in the home folder.",
        discussion: """
            One of: --dev --email E (a token from the home's development issuer); --id-token-file F (a
            provider's ID token, whose iss, aud and exp are committed); --otp --email E (a one-time code,
            read from <home>/outbox/ in development or from standard input with --code-stdin);
            --issuer-key-file F --issuer URL --audience AUD --kid K --subject S (a host that signs in
            without a person: an ID token for S, valid 5 minutes, minted in memory with the private key of
            an issuer the project trusts, 'core trust-issuer --jwks-from-pem'; see docs/jobs.md
            "Signing in without a person").

            The publishable key is read from the home's core, or given with --publishable-key (or
            $WALLETOPS_PUBLISHABLE_KEY) to sign in to a served core from another machine: then the home
            needs no core, only a place for the credential (--core URL is required, --otp reads the code
            with --code-stdin, and --dev, which needs the home's development issuer, is refused). The
            credential's private key is kept in <home>/credential.json (mode 0600) and never printed.
            """,
        options: CommonOptions.operatorOptions + [
            Self.dev, Self.email, Self.idTokenFile, Self.issuerKeyFile, Self.issuer, Self.audience, Self.kid,
            Self.subject, Self.otp, Self.codeStdin, Self.lifetime, Self.project, Self.publishableKey,
        ])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let lifetime = arguments.integer(Self.lifetime)
        let email = arguments.value(Self.email)
        let modes = [
            arguments.flag(Self.dev), arguments.wasGiven(Self.idTokenFile), arguments.flag(Self.otp),
            arguments.wasGiven(Self.issuerKeyFile),
        ]
        guard modes.filter({ $0 }).count == 1 else {
            throw CLIError.usage("give exactly one of --dev, --id-token-file, --otp, --issuer-key-file")
        }
        let minted = try Self.mintedToken(arguments, context)
        if (arguments.flag(Self.dev) || arguments.flag(Self.otp)) && (email ?? "").isEmpty {
            throw CLIError.usage("--dev and --otp need --email")
        }
        let givenKey = try Self.givenPublishableKey(arguments, context)
        if givenKey != nil {
            guard arguments.coreURL != nil else {
                throw CLIError.usage("--publishable-key signs in to a served core: give --core URL")
            }
            guard !arguments.flag(Self.dev) else {
                throw CLIError.usage("--dev needs the home's core (its development issuer); not with --publishable-key")
            }
            guard !arguments.wasGiven(Self.project) else {
                throw CLIError.usage("--project names a project of the home's core; not with --publishable-key")
            }
            if arguments.flag(Self.otp) && !arguments.flag(Self.codeStdin) {
                throw CLIError.usage("--otp against a core elsewhere reads the code with --code-stdin")
            }
        }
        let token =
            try minted
            ?? arguments.value(Self.idTokenFile).map {
                try CoreCommandSupport.readFile($0, context, what: "ID token file", limit: 64 << 10)
            }
        let credential = try await CoreCommandSupport.run {
            let connection: CoreConnection
            let key: PublishableKey
            if let givenKey {
                connection = try CoreConnection.open(
                    home: home, coreURL: arguments.coreURL, openHome: false, tuning: context.tuning.coreStore)
                key = givenKey
            } else {
                let core = try CoreCommandSupport.embeddedCore(home, tuning: context.tuning.coreStore)
                connection = CoreConnection(home: home, coreURL: arguments.coreURL, core: core)
                key = try PublishableKey(
                    try await CoreCommandSupport.project(named: arguments.value(Self.project), in: core).publishableKey)
            }
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

    /// With `--issuer-key-file`: an ID token for `--subject`, valid for ``mintedLifetime`` seconds, signed
    /// with the file's key (nil without the option). The token lives only in memory, and the key only while
    /// it signs: a host keeps one key file (mode 0600) instead of a token or a long session.
    ///
    /// - Throws: a usage error (64) for a missing or stray companion option; 74 when the file cannot be
    ///   read; 65 when it holds no usable key (the message names the file, never its content).
    static func mintedToken(_ arguments: ParsedArguments, _ context: Context) throws -> String? {
        let companions = [Self.issuer, Self.audience, Self.kid, Self.subject]
        guard let path = arguments.value(Self.issuerKeyFile) else {
            if let stray = companions.first(where: { arguments.wasGiven($0) }) {
                throw CLIError.usage("--\(stray.long) goes with --issuer-key-file")
            }
            return nil
        }
        let values = companions.map { arguments.value($0) ?? "" }
        if let missing = zip(companions, values).first(where: { $0.1.isEmpty }) {
            throw CLIError.usage("--issuer-key-file needs --\(missing.0.long)")
        }
        let url = context.fileURL(path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CLIError.ioError("cannot read the issuer key file \(path)")
        }
        var bytes = [UInt8](data)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        do {
            let issuer = try AppIssuer(
                issuer: values[0], audience: values[1], keyID: values[2], pem: bytes, source: path)
            return try issuer.idToken(
                subject: values[3], now: Int64(Date().timeIntervalSince1970), lifetime: Self.mintedLifetime)
        } catch let error as JobsError {
            throw CLIError.dataError(error.message)
        }
    }

    /// How long a minted ID token is valid: long enough for one sign-in, short enough to be worth nothing after.
    static let mintedLifetime: Int64 = 300

    /// `--publishable-key`, else `$WALLETOPS_PUBLISHABLE_KEY`; nil when neither is set. A key of the
    /// wrong form is a usage error with the SDK's text.
    static func givenPublishableKey(_ arguments: ParsedArguments, _ context: Context) throws -> PublishableKey? {
        let text =
            arguments.value(Self.publishableKey)
            ?? context.environment["WALLETOPS_PUBLISHABLE_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        guard let text else { return nil }
        do {
            return try PublishableKey(text.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw CLIError.usage("--publishable-key: Invalid publishableKey.")
        }
    }
}
