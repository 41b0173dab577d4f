import Jobs

/// `walletops logout`: forgets the stored credential (revokes nothing on the server, as the SDK's signOut).
struct LogoutCommand: Command {
    let configuration = CommandConfiguration(
        name: "logout", abstract: "Delete the stored credential from the home folder.",
        discussion: "Nothing is revoked on the server: the credential simply stops being usable here.",
        options: CommonOptions.operatorOptions)

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = arguments.home(in: context)
        let removed = try await CoreCommandSupport.run { try StoredCredential.remove(home: home) }
        context.standardOutput.writeLine(removed ? "signed out" : "not signed in")
        return ExitCode.success.rawValue
    }
}
