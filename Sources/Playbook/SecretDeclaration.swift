/// A declared secret (`secrets: {name: {env: VAR}}` or `{file: path}`).
public struct SecretDeclaration: Sendable, Hashable {
    /// The secret name, as used in `${{ secrets.name }}`.
    public var name: String
    /// Where it is read from.
    public var source: SecretSource
    /// Whether a missing secret is an error before the run starts (default true).
    public var required: Bool
    /// Where it was declared.
    public var location: SourceLocation
}
