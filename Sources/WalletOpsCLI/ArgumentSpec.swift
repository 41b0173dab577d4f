/// The description of a positional argument of a command.
public struct ArgumentSpec: Sendable, Hashable {
    /// The name shown as `<name>` in help and usage.
    public let name: String
    /// One line for the help screen.
    public let help: String
    /// Whether it may be left out.
    public let isOptional: Bool
    /// Whether it takes all remaining positional values (only the last argument may).
    public let isRepeating: Bool
    /// The type each value is checked against while parsing.
    public let valueType: ValueType
    /// Whether a value that looks like a private key is accepted; see ``KeyMaterialGuard``.
    public let acceptsKeyLikeValues: Bool

    /// A positional argument.
    public init(
        _ name: String, help: String, optional: Bool = false, repeating: Bool = false,
        type: ValueType = .string, acceptsKeyLikeValues: Bool = false
    ) {
        self.name = name
        self.help = help
        self.isOptional = optional
        self.isRepeating = repeating
        self.valueType = type
        self.acceptsKeyLikeValues = acceptsKeyLikeValues
    }

    /// `<name>`, `[<name>]`, `<name> ...` or `[<name> ...]`, as in usage lines.
    public var synopsis: String {
        let base = isRepeating ? "<\(name)> ..." : "<\(name)>"
        return isOptional ? "[\(base)]" : base
    }
}
