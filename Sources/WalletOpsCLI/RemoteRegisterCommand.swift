import Foundation
import Jobs
import OMSCore
import OMSProtocol
import WalletCrypto

/// `walletops remote register`: stages a remote credential as an app's backend would: a new Ethereum
/// key kept in the home, registered with the core (RegisterCredential, signed by the key itself).
struct RemoteRegisterCommand: Command {
    static let appName = OptionSpec.option(
        "app-name", valueName: "name", help: "The app's name, shown to the wallet's owner.", required: true)
    static let appURL = OptionSpec.option(
        "app-url", valueName: "url", help: "The app's URL.", type: .url(schemes: ["http", "https"]), required: true)
    static let appLogoURL = OptionSpec.option(
        "app-logo-url", valueName: "url", help: "The app's logo.", type: .url(schemes: ["http", "https"]))
    static let lifetime = OptionSpec.option(
        "lifetime", valueName: "seconds", help: "How long the registration lasts.",
        type: .integer(min: 1, max: 2_592_000), default: "86400")

    let configuration = CommandConfiguration(
        name: "register", abstract: "Make and register a remote credential (an app backend's Ethereum key).",
        discussion: """
            The key is made here and kept in <home>/remote/<address>.json (mode 0600); it is never
            printed. The publishable key is the home's first project's, so the home is needed even
            with --core. Prints the credential's expiry, then its id (the EIP-55 address) alone on the
            last line: cred=$(walletops remote register ... | tail -n 1).
            """,
        options: CommonOptions.operatorOptions + [Self.appName, Self.appURL, Self.appLogoURL, Self.lifetime])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let lifetime = arguments.integer(Self.lifetime) ?? 86_400
        let metadata = CredentialMetadata(
            appUrl: arguments.value(Self.appURL)!, appName: arguments.value(Self.appName)!,
            appLogoUrl: arguments.value(Self.appLogoURL) ?? "")
        let file = try await CoreCommandSupport.run {
            let core = try CoreCommandSupport.embeddedCore(home, tuning: context.tuning.coreStore)
            let connection = CoreConnection(home: home, coreURL: arguments.coreURL, core: core)
            let project = try await CoreCommandSupport.project(named: nil, in: core)
            let key = Secp256k1.PrivateKey.generate()
            let client = connection.client(
                publishableKey: try PublishableKey(project.publishableKey), signer: EthereumRequestSigner(key: key))
            let now = Int64(Date().timeIntervalSince1970)
            let reply = try await client.call(
                .registerCredential, RegisterCredentialRequest(lifetime: lifetime, metadata: metadata),
                as: RegisterCredentialResponse.self)
            var file = RemoteCredentialFile(
                key: key, publishableKey: project.publishableKey, core: connection.coreName,
                expiresAt: RFC3339.format(now + Int64(lifetime)), appName: metadata.appName)
            file.credentialId = reply.credentialId
            try file.save(home: home)
            return file
        }
        context.standardOutput.writeLine("expires_at: \(file.expiresAt)")
        context.standardOutput.writeLine(file.credentialId)
        return ExitCode.success.rawValue
    }
}
