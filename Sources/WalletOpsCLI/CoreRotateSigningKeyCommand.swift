import Jobs

/// `walletops core rotate-signing-key`: replaces the ID-token signing key and prints the new kid.
struct CoreRotateSigningKeyCommand: Command {
    let configuration = CommandConfiguration(
        name: "rotate-signing-key", abstract: "Replace the ID-token signing key and print its kid.",
        discussion: "The previous key stays in the JWKS, so tokens issued before the rotation still verify.",
        options: CommonOptions.operatorOptions)

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        try CoreCommandSupport.requireEmbedded(arguments, "core rotate-signing-key")
        let home = arguments.home(in: context)
        let kid = try await CoreCommandSupport.run {
            try await CoreCommandSupport.embeddedCore(home, tuning: context.tuning.coreStore).service.rotateSigningKey()
        }
        context.standardOutput.writeLine(kid)
        return ExitCode.success.rawValue
    }
}
