/// A declared var (`vars: {name: {type: ..., default: ..., required: ...}}`).
public struct VarDeclaration: Sendable, Hashable {
    /// The var name, as used in `${{ vars.name }}`.
    public var name: String
    /// The declared type.
    public var type: VarType
    /// For `enum`: the allowed values.
    public var choices: [String]
    /// The value when not set on the command line.
    public var defaultValue: TemplateValue?
    /// Whether a value must be given (a required var has no default).
    public var required: Bool
    /// Free text shown by `walletops describe`.
    public var description: String?
    /// Where it was declared.
    public var location: SourceLocation
}
