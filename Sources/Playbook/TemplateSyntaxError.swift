/// A template that does not parse, with the character offset where the problem is.
public struct TemplateSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The 0-based character offset in the template text.
    public var offset: Int

    /// Creates an error.
    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { message }
}
