import TextFormats

/// An error reported by SQLite: the result code, SQLite's message, and the SQL that failed.
///
/// Errors are equal by `code` (the extended result code), so callers can match them without
/// comparing messages. See <https://www.sqlite.org/rescode.html>.
public struct SQLiteError: CodedError, Sendable {
    /// The SQLite extended result code (for example 5 = `SQLITE_BUSY`, 2067 = `SQLITE_CONSTRAINT_UNIQUE`).
    public var code: Int32
    /// SQLite's own message (`sqlite3_errmsg`) or a description of what the wrapper rejected.
    public var message: String
    /// The SQL statement that failed, when there is one.
    public var sql: String?

    /// The primary result code: the low byte of `code`.
    public var primaryCode: Int32 { code & 0xff }

    /// True when the database was locked by another connection (`SQLITE_BUSY` or `SQLITE_LOCKED`).
    public var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }

    /// Creates an error.
    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in: \(sql))" }
        return "SQLite error \(code): \(message)"
    }
}
