/// `walletops version`: prints the version, like `walletops --version`.
struct VersionCommand: Command {
    let configuration = CommandConfiguration(name: "version", abstract: "Show the version.")

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        context.standardOutput.writeLine("walletops \(WalletOps.version)")
        return ExitCode.success.rawValue
    }
}
