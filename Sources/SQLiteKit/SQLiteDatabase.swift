internal import CSQLite

/// One SQLite connection: a `final class` owning the `sqlite3*` handle, closed in `deinit`.
///
/// A connection is confined to one thread at a time (it is opened with `SQLITE_OPEN_NOMUTEX`), so it is
/// explicitly not `Sendable`; share it across tasks through a ``DatabaseQueue``.
///
/// Durability: ``Configuration/default`` opens the file in WAL mode with `synchronous=NORMAL`. In that
/// mode a committed transaction survives a crash of the process (including SIGKILL), because the WAL
/// write happens before `COMMIT` returns; a power loss or OS crash may lose the last few committed
/// transactions, but never corrupts the database. Use ``Synchronous/full`` to also survive power loss,
/// at the cost of an fsync per commit. See <https://www.sqlite.org/wal.html> and
/// <https://www.sqlite.org/pragma.html#pragma_synchronous>.
public final class SQLiteDatabase {
    let handle: OpaquePointer
    /// The file path (or `:memory:`).
    public let path: String
    private var cache: [String: Statement] = [:]
    /// Statements of ``StatementSQL`` keys, found by identity; the entry keeps its key alive, so no other
    /// key can take its address.
    private var keyedCache: [ObjectIdentifier: (key: StatementSQL, statement: Statement)] = [:]
    /// The busy handler's state, alive as long as the connection.
    let busyWait: BusyWait
    /// State the layers above keep with this connection (``attachment(_:orMake:)``), one per type.
    private var attachments: [ObjectIdentifier: AnyObject] = [:]

    /// How the file is opened.
    public struct OpenFlags: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Open for reading only.
        public static let readOnly = OpenFlags(rawValue: 0x0000_0001)
        /// Open for reading and writing.
        public static let readWrite = OpenFlags(rawValue: 0x0000_0002)
        /// Create the file when it does not exist (with `readWrite`).
        public static let create = OpenFlags(rawValue: 0x0000_0004)
    }

    /// The `synchronous` pragma. See <https://www.sqlite.org/pragma.html#pragma_synchronous>.
    public enum Synchronous: String, Sendable {
        /// No fsync: a process crash is safe in WAL mode, a power loss may corrupt.
        case off = "OFF"
        /// WAL: committed transactions survive a process crash; power loss may lose the last ones.
        case normal = "NORMAL"
        /// An fsync on every commit: committed transactions survive power loss too.
        case full = "FULL"
    }

    /// Connection settings applied right after opening.
    public struct Configuration: Sendable {
        /// Open flags.
        public var flags: OpenFlags
        /// Use write-ahead logging (`journal_mode=WAL`).
        public var walMode: Bool
        /// The `synchronous` level, always set explicitly.
        public var synchronous: Synchronous
        /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`,
        /// retrying about every millisecond (see `BusyWait`).
        public var busyTimeoutMilliseconds: Int32
        /// Enforce foreign keys.
        public var foreignKeys: Bool
        /// The page cache size in KiB (`cache_size=-N`); nil keeps SQLite's 2 MiB. A transaction that
        /// dirties more pages than the cache holds spills them to the WAL and may write a page many times.
        /// See <https://www.sqlite.org/pragma.html#pragma_cache_size>.
        public var cacheKibibytes: Int? = nil
        /// Whether a transaction may spill dirty pages to the file before it commits (`cache_spill`); false
        /// keeps every dirty page of a transaction in memory, above `cacheKibibytes` if need be (bounded by
        /// the transaction). See <https://www.sqlite.org/pragma.html#pragma_cache_spill>.
        public var cacheSpill = true
        /// WAL pages before an automatic checkpoint (`wal_autocheckpoint`); nil keeps SQLite's 1000.
        /// See <https://www.sqlite.org/pragma.html#pragma_wal_autocheckpoint>.
        public var walAutocheckpointPages: Int? = nil
        /// Keep temporary files (savepoint and statement journals, sorts) in memory (`temp_store=MEMORY`)
        /// rather than in files under /var/tmp. See <https://www.sqlite.org/pragma.html#pragma_temp_store>.
        public var temporaryStorageInMemory = false

        /// Read-write-create, WAL, `synchronous=NORMAL`, a 5 s busy timeout, foreign keys on.
        public static let `default` = Configuration(
            flags: [.readWrite, .create], walMode: true, synchronous: .normal, busyTimeoutMilliseconds: 5000,
            foreignKeys: true)

        /// Creates a configuration.
        public init(
            flags: OpenFlags, walMode: Bool, synchronous: Synchronous, busyTimeoutMilliseconds: Int32,
            foreignKeys: Bool
        ) {
            self.flags = flags
            self.walMode = walMode
            self.synchronous = synchronous
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.foreignKeys = foreignKeys
        }
    }

    /// Process-wide settings, applied once before the first connection opens (SQLite refuses them later):
    /// no memory statistics, whose upkeep takes a global mutex on every allocation of every connection.
    private static let processConfiguration: Void = {
        _ = walletops_sqlite_disable_memstatus()
    }()

    /// Gives the pages of freed heap memory back to the system (glibc `malloc_trim`, every arena).
    /// Process-wide. Why: a bulk write frees megabytes at its end (the savepoint journal, kept in memory in
    /// small chunks, and the pages it read), which glibc otherwise keeps mapped; called after each bulk
    /// commit it lowers an import's peak memory for a little system time (docs/bench.md "Choices and what
    /// they measured").
    public static func returnFreedMemory() { walletops_trim_heap() }

    /// Opens (and by default creates) the database at `path` and applies `configuration`.
    ///
    /// - Throws: ``SQLiteError`` when the file cannot be opened or a pragma fails.
    public init(path: String, configuration: Configuration = .default) throws(SQLiteError) {
        _ = Self.processConfiguration
        var db: OpaquePointer?
        let flags = configuration.flags.rawValue | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "cannot open \(path): \(message)")
        }
        self.handle = db
        self.path = path
        busyWait = BusyWait(timeoutMilliseconds: configuration.busyTimeoutMilliseconds)
        busyWait.install(on: db)
        if configuration.walMode && !configuration.flags.contains(.readOnly) {
            let mode = try switchingToWAL()
            if mode?.lowercased() != "wal" && path != ":memory:" {
                throw SQLiteError(code: SQLITE_ERROR, message: "cannot switch \(path) to WAL (got \(mode ?? "nil"))")
            }
        }
        try execute("PRAGMA synchronous=\(configuration.synchronous.rawValue)")
        try execute("PRAGMA foreign_keys=\(configuration.foreignKeys ? "ON" : "OFF")")
        if let kibibytes = configuration.cacheKibibytes { try execute("PRAGMA cache_size=-\(max(kibibytes, 0))") }
        if !configuration.cacheSpill { try execute("PRAGMA cache_spill=OFF") }
        if configuration.temporaryStorageInMemory { try execute("PRAGMA temp_store=MEMORY") }
        if let pages = configuration.walAutocheckpointPages, !configuration.flags.contains(.readOnly) {
            _ = try scalarInt("PRAGMA wal_autocheckpoint=\(max(pages, 0))")
        }
    }

    /// `PRAGMA journal_mode=WAL`, tried again while another connection holds the lock it needs, within
    /// the busy timeout. Two connections switching a new file at once (two jobs started together on a fresh
    /// home) can each hold a shared lock and want an exclusive one: SQLite then answers SQLITE_BUSY to one
    /// of them at once, without its busy handler, so as not to deadlock.
    private func switchingToWAL() throws(SQLiteError) -> String? {
        var attempts: Int32 = 0
        while true {
            do {
                return try scalarString("PRAGMA journal_mode=WAL")
            } catch  where error.code & 0xff == SQLITE_BUSY && busyWait.shouldRetry(priorAttempts: attempts) {
                attempts += 1
            }
        }
    }

    deinit {
        // Statements must be finalized before the connection closes.
        cache.removeAll()
        keyedCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that return no rows (no parameters).
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// Runs `sql` with `values` bound, through the statement cache.
    public func execute(_ sql: String, _ values: [SQLiteValue]) throws(SQLiteError) {
        try cachedStatement(sql).execute(values)
    }

    /// Every row `sql` returns with `values` bound, through the statement cache.
    public func rows(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        try cachedStatement(sql).rows(values)
    }

    /// Prepares a new statement the caller owns.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// A prepared statement for `sql`, prepared once and reused (reset before it is returned).
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(database: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// The prepared statement of `sql`, found by the key's identity: for statements run once per row,
    /// where hashing a long SQL text on every call shows in profiles.
    public func cachedStatement(_ sql: StatementSQL) throws(SQLiteError) -> Statement {
        let id = ObjectIdentifier(sql)
        if let entry = keyedCache[id] {
            entry.statement.reset()
            return entry.statement
        }
        let statement = try Statement(database: self, sql: sql.text)
        keyedCache[id] = (sql, statement)
        return statement
    }

    /// The state of type `Value` kept with this connection, made by `make` on first use: for what the
    /// layers above learn through this connection and may reuse on it (a summary of a table's contents,
    /// say). Confined to the connection's thread like the connection itself.
    public func attachment<Value: AnyObject>(_ type: Value.Type, orMake make: () -> Value) -> Value {
        let id = ObjectIdentifier(type)
        // Stored under its own type's identifier (here and in `attach`), so the cast cannot fail.
        if let value = attachments[id] { return unsafeDowncast(value, to: Value.self) }
        let value = make()
        attachments[id] = value
        return value
    }

    /// Keeps `value` with this connection, in place of any earlier state of its type.
    public func attach<Value: AnyObject>(_ value: Value) {
        attachments[ObjectIdentifier(Value.self)] = value
    }

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// True while a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The `user_version` pragma, used by ``migrate(_:)``.
    public var userVersion: Int {
        get throws(SQLiteError) { Int(try scalarInt("PRAGMA user_version") ?? 0) }
    }

    /// The first column of the first row of `sql`, as an integer.
    public func scalarInt(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> Int64? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        guard try statement.step(), !statement.isNull(at: 0) else { return nil }
        return statement.int64(at: 0)
    }

    /// The first column of the first row of `sql`, as text.
    public func scalarString(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> String? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        guard try statement.step() else { return nil }
        return statement.string(at: 0)
    }

    func error(code: Int32, sql: String?) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        return SQLiteError(
            code: extended != 0 ? extended : code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}

@available(*, unavailable)
extension SQLiteDatabase: Sendable {}
