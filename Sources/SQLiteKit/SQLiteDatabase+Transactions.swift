/// Transactions. See <https://www.sqlite.org/lang_transaction.html>.
extension SQLiteDatabase {
    /// The kind of `BEGIN`.
    public enum TransactionKind: String, Sendable {
        /// Takes no lock until the first read or write.
        case deferred = "DEFERRED"
        /// Takes the write lock at once: the right kind for a writer, so it never fails midway on upgrade.
        case immediate = "IMMEDIATE"
        /// Like immediate (in WAL mode).
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// - Throws: the error `body` threw, or ``SQLiteError`` from `BEGIN`/`COMMIT`.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue)")
        let result: T
        do {
            result = try body()
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
        return result
    }
}
