/// The SQL of a statement run on a hot path, as an object: ``SQLiteDatabase/cachedStatement(_:)-(StatementSQL)``
/// finds its prepared statement by the object's identity instead of hashing and comparing the text, which
/// for a long insert costs a few hundred nanoseconds per call. Keep one per statement, in a `static let`.
public final class StatementSQL: Sendable {
    /// The SQL text.
    public let text: String

    public init(_ text: String) { self.text = text }
}
