/// An error that carries a closed `code`, which callers match on, and a `message`, which the operator
/// reads: the one shape of the project's error types, from SQLite's to the CLI's.
///
/// Two errors are equal, and hash alike, when their codes are: a caller or a test compares what went
/// wrong, not the wording of the message (STYLE.md "Types and errors"). The description is the message;
/// a type whose text names more (a code, an offset) states its own `description`. A message never holds
/// secret material.
public protocol CodedError: Error, Hashable, CustomStringConvertible {
    /// What went wrong, as a closed set of cases.
    associatedtype Code: Hashable
    /// What went wrong.
    var code: Code { get }
    /// A human-readable explanation that says what and where.
    var message: String { get }
}

extension CodedError {
    public var description: String { message }

    /// Equal by code.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
