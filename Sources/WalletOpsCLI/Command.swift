/// A `walletops` command: a description the parser reads, and the code that runs it.
///
/// Adding a command is one type conforming to this protocol plus one line in its parent's
/// `subcommands`. Options shared by many commands (``CommonOptions``) are declared once.
///
/// ```swift
/// struct WalletListCommand: Command {
///     static let limit = OptionSpec.option("limit", valueName: "n", help: "At most n wallets.", type: .integer(min: 1))
///     let configuration = CommandConfiguration(
///         name: "list", abstract: "List wallets.", options: CommonOptions.operatorOptions + [Self.limit])
///     func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 { ... }
/// }
/// ```
public protocol Command: Sendable {
    /// The command's description.
    var configuration: CommandConfiguration { get }

    /// Runs the command with its parsed command line.
    ///
    /// - Returns: The exit code (see ``ExitCode``).
    /// - Throws: A ``CLIError`` for an expected failure (its code picks the exit code); any other
    ///   error is reported as an internal error (exit 70).
    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32

    /// What `--help` adds after the command's own help, given the words that followed the command
    /// (`walletops run PLAYBOOK --help` lists the playbook's vars). Default nil.
    func extraHelp(_ words: [String], context: Context) -> String?
}

extension Command {
    public func extraHelp(_ words: [String], context: Context) -> String? { nil }
}

/// A command that only groups subcommands (`walletops crypto`, `walletops core`).
public struct CommandGroup: Command {
    /// The group's name, help text and subcommands.
    public let configuration: CommandConfiguration

    /// A group named `name` holding `subcommands`.
    public init(name: String, abstract: String, discussion: String = "", subcommands: [any Command]) {
        configuration = CommandConfiguration(
            name: name, abstract: abstract, discussion: discussion, subcommands: subcommands)
    }

    /// Never called: the parser asks for a subcommand first.
    public func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        throw CLIError.usage("missing subcommand")
    }
}
