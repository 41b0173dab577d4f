/// Schema migrations keyed by the `user_version` pragma.
///
/// Migration `i` (0-based) brings the schema from version `i` to `i + 1`; each runs in its own
/// immediate transaction together with the `user_version` update, so a crash leaves the schema at a
/// whole version. See <https://www.sqlite.org/pragma.html#pragma_user_version>.
extension SQLiteDatabase {
    /// One schema step: a name for errors and the SQL script that performs it.
    public struct Migration: Sendable {
        /// A short name shown in errors.
        public var name: String
        /// One or more SQL statements.
        public var sql: String
        /// Runs after `sql` in the same transaction: what SQL alone cannot express (values computed by
        /// the program).
        public var body: (@Sendable (SQLiteDatabase) throws -> Void)?
        /// Runs with foreign-key enforcement off (it cannot change inside a transaction), then checks every
        /// foreign key before committing: the way SQLite documents for rebuilding a table that other
        /// tables reference (<https://www.sqlite.org/lang_altertable.html#otheralter>).
        public var rebuildsTables: Bool

        /// Creates a migration.
        public init(
            _ name: String, sql: String, rebuildsTables: Bool = false,
            body: (@Sendable (SQLiteDatabase) throws -> Void)? = nil
        ) {
            self.name = name
            self.sql = sql
            self.rebuildsTables = rebuildsTables
            self.body = body
        }
    }

    /// Applies the migrations the database has not seen yet, in order.
    ///
    /// - Returns: the number of migrations applied.
    /// - Throws: ``SQLiteError`` naming the migration that failed, or when the database is newer than
    ///   the list (it was written by a later version of the program).
    @discardableResult
    public func migrate(_ migrations: [Migration]) throws(SQLiteError) -> Int {
        let current = try userVersion
        if current > migrations.count {
            throw SQLiteError(
                code: 1,
                message: "database \(path) has schema version \(current), newer than this program's "
                    + "\(migrations.count)")
        }
        var applied = 0
        for (index, migration) in migrations.enumerated() where index >= current {
            var ran = false
            do {
                let enforcing = try migration.rebuildsTables && scalarInt("PRAGMA foreign_keys") == 1
                if enforcing { try execute("PRAGMA foreign_keys=OFF") }
                defer { if enforcing { try? execute("PRAGMA foreign_keys=ON") } }
                try transaction(.immediate) {
                    // Read again under the write lock: another process opening the same new file (two jobs
                    // started at once on a fresh home) may have applied it since.
                    guard try userVersion == index else { return }
                    ran = true
                    try execute(migration.sql)
                    try migration.body?(self)
                    if migration.rebuildsTables, let broken = try rows("PRAGMA foreign_key_check").first {
                        let table = if case .text(let name) = broken[0] { name } else { "?" }
                        throw SQLiteError(code: 19, message: "the rebuild broke a foreign key of table \(table)")
                    }
                    try execute("PRAGMA user_version=\(index + 1)")
                }
            } catch let error as SQLiteError {
                throw SQLiteError(
                    code: error.code, message: "migration \(index + 1) '\(migration.name)': \(error.message)",
                    sql: error.sql)
            } catch {
                throw SQLiteError(code: 1, message: "migration \(index + 1) '\(migration.name)': \(error)")
            }
            if ran { applied += 1 }
        }
        return applied
    }
}
