import Foundation
import Jobs
import OMSCore
import OMSProtocol

/// `walletops remote authorize`: the wallet's owner (the CLI's signed-in credential) grants a remote
/// credential bounded access to an Ethereum wallet on one network (AuthorizeRemoteAccess).
struct RemoteAuthorizeCommand: Command {
    static let credential = OptionSpec.option(
        "credential", valueName: "address", help: "The remote credential (its address).", required: true)
    static let network = OptionSpec.option(
        "network", help: "The network, by name (polygonAmoy) or chain id (80002).", required: true)
    static let nativeTo = OptionSpec.option(
        "native-to", valueName: "address", help: "A receiver of native transfers.")
    static let nativeLimit = OptionSpec.option(
        "native-limit", valueName: "wei", help: "The most wei the session may send to --native-to, in total.")
    static let erc20Token = OptionSpec.option("erc20-token", valueName: "address", help: "An ERC-20 token contract.")
    static let erc20Limit = OptionSpec.option(
        "erc20-limit", valueName: "amount", help: "The most of --erc20-token the session may send, in total.")
    static let erc20To = OptionSpec.option(
        "erc20-to", valueName: "address", help: "The only receiver of --erc20-token.",
        defaultDescription: "any receiver")
    static let expiresAt = OptionSpec.option(
        "expires-at", valueName: "time", help: "When the session ends (RFC 3339, UTC).",
        defaultDescription: "1 hour from now")

    let configuration = CommandConfiguration(
        name: "authorize", abstract: "Grant a remote credential a session on an Ethereum wallet.",
        discussion: """
            Give a native grant (--native-to and --native-limit), an ERC-20 grant (--erc20-token and
            --erc20-limit, optionally --erc20-to), or both. Limits are exact decimal integers (wei, or
            the token's smallest unit). The core caps the expiry at the remote credential's own; the
            effective expiry is printed, then the session id alone on the last line.
            """,
        options: CommonOptions.operatorOptions + [
            Self.credential, WalletChoice.option, Self.network, Self.nativeTo, Self.nativeLimit, Self.erc20Token,
            Self.erc20Limit, Self.erc20To, Self.expiresAt,
        ])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let network = try Self.network(arguments.value(Self.network)!)
        let grants = try Self.grants(arguments)
        let expiry: String
        if let given = arguments.value(Self.expiresAt) {
            guard RFC3339.parse(given) != nil else {
                throw CLIError.usage(
                    "--expires-at must be an RFC 3339 time such as 2030-01-01T00:00:00Z, got '\(given)'")
            }
            expiry = given
        } else {
            expiry = RFC3339.format(Int64(Date().timeIntervalSince1970) + 3600)
        }
        let reply = try await CoreCommandSupport.run {
            let (_, stored, client) = try CoreConnection.signedIn(
                home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
            let walletId = try await WalletChoice.resolve(
                arguments.value(WalletChoice.option), credential: stored, client: client)
            return try await client.call(
                .authorizeRemoteAccess,
                AuthorizeRemoteAccessRequest(
                    credentialId: arguments.value(Self.credential)!, walletId: walletId, grants: grants,
                    expiry: expiry, chainId: network.wireChainId),
                as: AuthorizeRemoteAccessResponse.self)
        }
        context.standardOutput.writeLine("network: \(network.name) (\(network.chainId))")
        context.standardOutput.writeLine("expires_at: \(reply.expiry)")
        context.standardOutput.writeLine(reply.sessionId)
        return ExitCode.success.rawValue
    }

    /// A network by name or chain id, or a usage error listing the names.
    static func network(_ text: String) throws -> Network {
        guard let network = Network(nameOrChainId: text) else {
            throw CLIError.usage(
                "unknown network '\(text)': give one of \(Network.all.map(\.name).joined(separator: ", ")) or its chain id"
            )
        }
        return network
    }

    static func grants(_ arguments: ParsedArguments) throws -> [Grant] {
        var grants: [Grant] = []
        switch (arguments.value(Self.nativeTo), arguments.value(Self.nativeLimit)) {
        case (let to?, let limit?): grants.append(.nativeTransfer(to: to, limit: limit))
        case (nil, nil): break
        default: throw CLIError.usage("--native-to and --native-limit go together")
        }
        switch (arguments.value(Self.erc20Token), arguments.value(Self.erc20Limit)) {
        case (let token?, let limit?):
            grants.append(.erc20Transfer(token: token, to: arguments.value(Self.erc20To), limit: limit))
        case (nil, nil):
            if arguments.wasGiven(Self.erc20To) {
                throw CLIError.usage("--erc20-to needs --erc20-token and --erc20-limit")
            }
        default: throw CLIError.usage("--erc20-token and --erc20-limit go together")
        }
        guard !grants.isEmpty else {
            throw CLIError.usage("give a grant: --native-to and --native-limit, or --erc20-token and --erc20-limit")
        }
        return grants
    }
}
