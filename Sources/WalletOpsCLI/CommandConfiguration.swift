/// The declarative description of a command: its name, help text, options, arguments and
/// subcommands. The parser, the help screen and the usage line are all derived from it.
public struct CommandConfiguration: Sendable {
    /// The word that selects the command (`address` in `walletops crypto address`).
    public var name: String
    /// One line: what the command does.
    public var abstract: String
    /// Longer help shown after the abstract; may span lines.
    public var discussion: String
    /// Named options and flags, in help order. `-h/--help` is added by the parser.
    public var options: [OptionSpec]
    /// Positional arguments, in order.
    public var arguments: [ArgumentSpec]
    /// Nested commands; a command with subcommands is a group and is not run itself.
    public var subcommands: [any Command]

    /// A command description.
    public init(
        name: String, abstract: String, discussion: String = "", options: [OptionSpec] = [],
        arguments: [ArgumentSpec] = [], subcommands: [any Command] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
        self.subcommands = subcommands
    }

    /// The option named `--long`, if any.
    func option(long: String) -> OptionSpec? { options.first { $0.long == long } }

    /// The option named `-short`, if any.
    func option(short: Character) -> OptionSpec? { options.first { $0.short == short } }

    /// The subcommand named `name`, if any.
    func subcommand(_ name: String) -> (any Command)? { subcommands.first { $0.configuration.name == name } }

    /// Mistakes in the description itself (duplicate names, a repeating argument not last, a
    /// reserved name), checked by the tests over the whole command tree.
    func problems() -> [String] {
        var problems: [String] = []
        var longs: Set<String> = ["help"]
        var shorts: Set<Character> = ["h"]
        for option in options {
            if !longs.insert(option.long).inserted { problems.append("\(name): duplicate option --\(option.long)") }
            if let short = option.short, !shorts.insert(short).inserted {
                problems.append("\(name): duplicate short option -\(short)")
            }
            if option.isRequired && option.defaultValue != nil {
                problems.append("\(name): --\(option.long) is required and has a default")
            }
        }
        for (index, argument) in arguments.enumerated() where argument.isRepeating && index != arguments.count - 1 {
            problems.append("\(name): repeating argument <\(argument.name)> is not last")
        }
        if !subcommands.isEmpty && (!options.isEmpty || !arguments.isEmpty) {
            problems.append("\(name): a group takes no options or arguments of its own")
        }
        var names: Set<String> = []
        for sub in subcommands where sub.configuration.name == "help" || sub.configuration.name.hasPrefix("-") {
            problems.append("\(name): subcommand name \(sub.configuration.name) is reserved")
        }
        for sub in subcommands where !names.insert(sub.configuration.name).inserted {
            problems.append("\(name): duplicate subcommand \(sub.configuration.name)")
        }
        return problems
    }
}
