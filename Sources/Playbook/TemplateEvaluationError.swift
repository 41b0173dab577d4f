/// A template that failed while being evaluated (a missing value, a type mismatch).
public struct TemplateEvaluationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong; names the path, never a secret value.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
