/// The values of a parsed command line, already checked against the command's description:
/// every required option and argument is present, every value has its declared type, and options
/// not given carry their defaults. Read it with the same ``OptionSpec``/``ArgumentSpec`` constants
/// the command declared.
public struct ParsedArguments: Sendable, Equatable {
    /// `["walletops", "crypto", "address"]`.
    public let commandPath: [String]
    /// Values per option long name, in command-line order (defaults when not given).
    var optionValues: [String: [String]] = [:]
    /// Options given on the command line (as opposed to filled from a default).
    var givenOptions: Set<String> = []
    /// How many times each flag was given.
    var flagCounts: [String: Int] = [:]
    /// Values per argument name.
    var argumentValues: [String: [String]] = [:]

    init(commandPath: [String]) { self.commandPath = commandPath }

    /// The value of a single-valued option (the default when not given), or nil.
    public func value(_ option: OptionSpec) -> String? { optionValues[option.long]?.last }

    /// All values of a repeating option, in command-line order.
    public func values(_ option: OptionSpec) -> [String] { optionValues[option.long] ?? [] }

    /// Whether the option was given on the command line (not just defaulted).
    public func wasGiven(_ option: OptionSpec) -> Bool { givenOptions.contains(option.long) }

    /// Whether a flag was given.
    public func flag(_ option: OptionSpec) -> Bool { count(option) > 0 }

    /// How many times a flag was given (`-vv` is 2).
    public func count(_ option: OptionSpec) -> Int { flagCounts[option.long] ?? 0 }

    /// The value of an `.integer` option.
    public func integer(_ option: OptionSpec) -> Int? { value(option).flatMap { Int($0) } }

    /// The value of a `.choice` option as an enum whose raw values are the choices.
    public func choice<Choice: RawRepresentable>(_ option: OptionSpec, as type: Choice.Type) -> Choice?
    where Choice.RawValue == String {
        value(option).flatMap { Choice(rawValue: $0) }
    }

    /// The pairs of a repeating `.keyValue` option, in command-line order.
    public func keyValues(_ option: OptionSpec) -> [(key: String, value: String)] {
        values(option).map { item in
            // Checked while parsing for `.keyValue` options; any other option reads as a bare key.
            let equals = item.firstIndex(of: "=") ?? item.endIndex
            if equals == item.endIndex { return (item, "") }
            return (String(item[..<equals]), String(item[item.index(after: equals)...]))
        }
    }

    /// The pairs of a `.keyValue` option as a dictionary; a key given twice keeps its last value.
    public func keyValueDictionary(_ option: OptionSpec) -> [String: String] {
        var result: [String: String] = [:]
        for pair in keyValues(option) { result[pair.key] = pair.value }
        return result
    }

    /// The value of a single positional argument, or nil when an optional one was left out.
    public func argument(_ argument: ArgumentSpec) -> String? { argumentValues[argument.name]?.first }

    /// All values of a repeating positional argument.
    public func arguments(_ argument: ArgumentSpec) -> [String] { argumentValues[argument.name] ?? [] }
}
