/// The chain of commands a command line selected, from the root to the command that runs.
struct CommandPath: Sendable {
    /// Root first.
    let commands: [any Command]

    /// The selected command.
    var leaf: any Command { commands[commands.count - 1] }

    /// `["walletops", "crypto", "address"]`.
    var names: [String] { commands.map(\.configuration.name) }

    /// `walletops crypto address`.
    var displayName: String { names.joined(separator: " ") }

    /// Whether the selected command is the root.
    var isRoot: Bool { commands.count == 1 }
}

/// What a command line asks for.
enum Invocation: Sendable {
    /// Run the leaf command with these values.
    case run(CommandPath, ParsedArguments)
    /// Print the help of this command (`-h`, `--help`, `help <subcommand>`).
    case help(CommandPath)
    /// Print the version (`--version`).
    case version
}

/// A mistake in the command line: reported with the usage line of `path` and exit 64.
struct UsageError: Error, Sendable {
    let message: String
    let path: CommandPath
}
