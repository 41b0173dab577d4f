/// Runs a command line against a command tree: parses it, prints help or the version, or runs the
/// selected command, and turns errors into messages on standard error and an exit code.
public struct CommandLineTool: Sendable {
    /// The root command (`walletops`).
    public let root: any Command
    /// What `--version` prints after the root's name.
    public let version: String

    /// A tool for `root`.
    public init(root: any Command, version: String) {
        self.root = root
        self.version = version
    }

    /// Parses `arguments` (without the program name), runs the command, and returns the exit code.
    public func run(_ arguments: [String], context: Context) async -> Int32 {
        let invocation: Invocation
        do {
            invocation = try CommandLineParser(root: root).parse(arguments)
        } catch {
            context.standardError.write(HelpFormatter.usageError(error.message, path: error.path))
            return ExitCode.usage.rawValue
        }
        switch invocation {
        case .help(let path):
            context.standardOutput.write(HelpFormatter.help(path))
            let words = Array(arguments.drop { $0 != path.leaf.configuration.name }.dropFirst())
            if let extra = path.leaf.extraHelp(words, context: context) {
                context.standardOutput.write("\n" + extra)
            }
            return ExitCode.success.rawValue
        case .version:
            context.standardOutput.writeLine("\(root.configuration.name) \(version)")
            return ExitCode.success.rawValue
        case .run(let path, let parsed):
            do {
                return try await path.leaf.run(parsed, context: context)
            } catch let error as CLIError {
                if error.code == .usage {
                    context.standardError.write(HelpFormatter.usageError(error.message, path: path))
                } else {
                    context.standardError.writeLine("Error: \(error.message)")
                }
                return error.exitCode.rawValue
            } catch {
                // Errors of this codebase never carry secrets, so the description is safe to show.
                context.standardError.writeLine("Error: internal error in '\(path.displayName)': \(error)")
                return ExitCode.internalError.rawValue
            }
        }
    }
}
