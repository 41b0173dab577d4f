/// Thrown when a playbook (or a command-line value for it) is invalid; carries every diagnostic found.
public struct PlaybookError: Error, Sendable, CustomStringConvertible {
    /// All problems found, in source order.
    public var diagnostics: [Diagnostic]
    /// The source text, kept to render the offending lines (playbooks hold no secret values).
    public var source: String?

    /// Creates an error from diagnostics.
    public init(diagnostics: [Diagnostic], source: String? = nil) {
        self.diagnostics = diagnostics
        self.source = source
    }

    /// The diagnostics rendered with source lines and carets.
    public var description: String { Diagnostic.render(diagnostics, source: source) }
}
