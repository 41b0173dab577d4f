import Jobs
import OMSProtocol

/// `walletops access revoke`: ends a credential's access to a wallet (RevokeAccess): a direct
/// credential by its id, a remote session by its credential and session ids.
struct AccessRevokeCommand: Command {
    static let credential = OptionSpec.option(
        "credential", valueName: "id",
        help: "The credential to revoke: a direct credential's 0x04... key, or a remote credential's address.",
        required: true)
    static let session = OptionSpec.option(
        "session", valueName: "id", help: "The remote session to revoke (ses_...); required for a remote credential.")

    let configuration = CommandConfiguration(
        name: "revoke", abstract: "Revoke a credential's or a remote session's access to a wallet.",
        discussion: """
            A direct credential is revoked everywhere (it is a grant on each of the account's wallets);
            a remote credential needs --session and loses exactly that session. Revoking the CLI's own
            credential signs the CLI out: <home>/credential.json is deleted and the next command asks
            for 'walletops login'. Revocation is permanent.
            """,
        options: CommonOptions.operatorOptions + [Self.credential, Self.session, WalletChoice.option])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let target = arguments.value(Self.credential)!
        let session = arguments.value(Self.session)
        let ownRevoked = try await CoreCommandSupport.run {
            let (_, stored, client) = try CoreConnection.signedIn(
                home: home, coreURL: arguments.coreURL, tuning: context.tuning.coreStore)
            let walletId = try await WalletChoice.resolve(
                arguments.value(WalletChoice.option), credential: stored, client: client)
            _ = try await client.call(
                .revokeAccess, RevokeAccessRequest(targetCredentialId: target, walletId: walletId, sessionId: session),
                as: OKResponse.self)
            let own = session == nil && target.lowercased() == stored.credentialId.lowercased()
            if own { try StoredCredential.remove(home: home) }
            return own
        }
        if let session {
            context.standardOutput.writeLine("revoked session \(session) of \(target)")
        } else {
            context.standardOutput.writeLine("revoked \(target)")
        }
        if ownRevoked {
            context.standardOutput.writeLine("that was the CLI's own credential: signed out")
        }
        return ExitCode.success.rawValue
    }
}
