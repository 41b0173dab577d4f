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
    /// Whether the var is part of what a run does (`identity: false`: it does not change the work, such
    /// as how many requests are in flight or how many rows a chunk holds; a resume may change it).
    public var changesWork: Bool = true
    /// Where it was declared.
    public var location: SourceLocation
}
