/// The description of one named option or flag of a command: `--long`, optional `-s`, its value.
///
/// Declared once as a static constant and shared by every command that takes it (see
/// ``CommonOptions``); ``ParsedArguments`` is read with the same constant.
public struct OptionSpec: Sendable, Hashable {
    /// Whether the option takes a value.
    public enum Kind: Sendable, Hashable {
        /// `--verbose`: present or not (may be counted when repeated).
        case flag
        /// `--type <type>`, `--type=<type>`.
        case value
    }

    /// The long name, without the leading `--`.
    public let long: String
    /// The one-letter short name, without the leading `-`.
    public let short: Character?
    /// Flag or valued option.
    public let kind: Kind
    /// The placeholder in help and usage, as in `--key-file <file>`.
    public let valueName: String
    /// One line for the help screen.
    public let help: String
    /// The value used when the option is not given.
    public let defaultValue: String?
    /// How the default is shown in help when it is not a fixed value (e.g. taken from the environment).
    public let defaultDescription: String?
    /// Whether the command line must give it.
    public let isRequired: Bool
    /// Whether it may be given several times (`--var a=1 --var b=2`); values are kept in order.
    public let isRepeating: Bool
    /// The type its value is checked against while parsing.
    public let valueType: ValueType
    /// Whether a value that looks like a private key is accepted (e.g. an option taking a public
    /// Solana address, which has the shape of a base58 seed). Off by default: see ``KeyMaterialGuard``.
    public let acceptsKeyLikeValues: Bool

    /// A valued option.
    public static func option(
        _ long: String, short: Character? = nil, valueName: String? = nil, help: String,
        type: ValueType = .string, default defaultValue: String? = nil, defaultDescription: String? = nil,
        required: Bool = false, repeating: Bool = false, acceptsKeyLikeValues: Bool = false
    ) -> OptionSpec {
        OptionSpec(
            long: long, short: short, kind: .value, valueName: valueName ?? long, help: help,
            defaultValue: defaultValue, defaultDescription: defaultDescription, isRequired: required,
            isRepeating: repeating, valueType: type, acceptsKeyLikeValues: acceptsKeyLikeValues)
    }

    /// A flag: no value, may be repeated (``ParsedArguments/count(_:)`` tells how often).
    public static func flag(_ long: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(
            long: long, short: short, kind: .flag, valueName: "", help: help, defaultValue: nil,
            defaultDescription: nil, isRequired: false, isRepeating: true, valueType: .string,
            acceptsKeyLikeValues: false)
    }

    /// `--long <value>` (or `--long` for a flag), as in usage lines and error messages.
    public var synopsis: String {
        kind == .flag ? "--\(long)" : "--\(long) <\(valueName)>"
    }

    /// `-s, --long <value>`, the left column of the help screen.
    var helpLabel: String {
        let names = short.map { "-\($0), --\(long)" } ?? "--\(long)"
        return kind == .flag ? names : "\(names) <\(valueName)>"
    }

    /// The help line with its default, choices and repetition spelled out.
    var helpText: String {
        var notes: [String] = []
        if case .choice(let choices) = valueType { notes.append("values: \(choices.joined(separator: ", "))") }
        if let defaultDescription {
            notes.append("default: \(defaultDescription)")
        } else if let defaultValue {
            notes.append("default: \(defaultValue)")
        }
        if isRepeating && kind == .value { notes.append("repeatable") }
        return notes.isEmpty ? help : "\(help) (\(notes.joined(separator: "; ")))"
    }
}
