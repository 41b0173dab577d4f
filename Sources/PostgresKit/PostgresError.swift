/// An error from PostgreSQL or libpq: the server's message and SQLSTATE when it answered, or why the
/// connection failed. Never carries the connection URL's password.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505` unique violation, `40001` serialization failure), nil when
    /// the server never answered.
    public var sqlState: String?
    /// What went wrong, as libpq or the server put it (trimmed).
    public var message: String
    /// True when the connection is gone (the server stopped, the backend was terminated, the network
    /// failed): the statement may or may not have been applied, and the next call reconnects.
    public var isConnectionLost: Bool

    /// Creates an error.
    public init(sqlState: String? = nil, message: String, isConnectionLost: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.isConnectionLost = isConnectionLost
    }

    /// `23505`: a unique or primary-key constraint refused the row.
    public var isUniqueViolation: Bool { sqlState == "23505" }

    public var description: String {
        "PostgreSQL: \(message)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "")
    }
}
