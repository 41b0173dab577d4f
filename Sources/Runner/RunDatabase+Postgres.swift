import PostgresKit

/// The run store on a PostgreSQL server: one store that runs on several machines share
/// (`--store postgresql://...`), in the schema `walletops` of the URL's database.
struct PostgresRunDatabaseQueue: RunDatabaseQueue {
    let queue: PostgresQueue

    /// The schema the store's tables live in, so that they share a database with others' tables.
    static let schema = "walletops"

    /// Connects to `url`, creates the schema when missing and applies the migrations it lacks. The
    /// session shows as `applicationName` in `pg_stat_activity` (`walletops host:pid`, the lease owner's
    /// name), so an operator can tell whose connection is whose.
    ///
    /// - Throws: ``PostgresError`` (the URL shown without its password), or ``RunStoreError`` when the
    ///   store's schema is newer than this program's.
    init(url: String, applicationName: String = "walletops") throws {
        let name = applicationName.replacingOccurrences(of: "'", with: "''")
        queue = try PostgresQueue(
            url: url, sessionSetup: "SET search_path TO \(Self.schema); SET application_name TO '\(name)'")
        let location = queue.displayURL
        try queue.sync { connection in try Self.migrate(connection, location: location) }
    }

    var location: String { queue.displayURL }

    func read<T: Sendable>(_ body: @escaping @Sendable (any RunDatabase) throws -> T) async throws -> T {
        try await queue.read { connection in try body(PostgresRunDatabase(connection: connection)) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any RunDatabase) throws -> T) async throws -> T {
        try await queue.write { connection in try body(PostgresRunDatabase(connection: connection)) }
    }

    /// The key of the transaction-scoped advisory lock that migrations and the opening of runs take.
    static let openingLock: Int64 = 0x7761_6c6c_6574_6f70  // "walletop"

    /// Applies the missing migrations of ``RunStoreSchema/postgres`` in one transaction under the
    /// opening lock: two workers starting on a new database at once migrate it once.
    static func migrate(_ connection: PostgresConnection, location: String) throws {
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(openingLock)])
            try connection.executeScript(
                """
                CREATE SCHEMA IF NOT EXISTS \(schema);
                CREATE TABLE IF NOT EXISTS schema_version(version BIGINT NOT NULL);
                INSERT INTO schema_version SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM schema_version);
                """)
            let current = Int(try connection.execute("SELECT version FROM schema_version").scalarInt ?? 0)
            let migrations = RunStoreSchema.postgres
            if current > migrations.count {
                throw RunStoreError(
                    .database, runID: nil,
                    "the run store \(location) has schema version \(current), newer than this program's "
                        + "\(migrations.count): use the walletops that wrote it")
            }
            for index in current..<migrations.count {
                do {
                    try connection.executeScript(migrations[index].sql)
                } catch {
                    throw RunStoreError(
                        .database, runID: nil,
                        "the run store \(location): migration \(index + 1) '\(migrations[index].name)': \(error)")
                }
            }
            if current < migrations.count {
                try connection.execute("UPDATE schema_version SET version = $1", [.integer(Int64(migrations.count))])
            }
        }
    }
}

/// A run-store connection on PostgreSQL. The store's `?` placeholders become `$1`, `$2`, ...; values go
/// as text and come back as text, which ``StoreValue``'s readers parse.
struct PostgresRunDatabase: RunDatabase {
    let connection: PostgresConnection

    func rows(_ sql: String, _ values: [StoreValue]) throws -> [[StoreValue]] {
        try connection.execute(Self.numbered(sql), values.map(Self.parameter)).rows.map { row in
            row.map { $0.map(StoreValue.text) ?? .null }
        }
    }

    @discardableResult func execute(_ sql: String, _ values: [StoreValue]) throws -> Int {
        try connection.execute(Self.numbered(sql), values.map(Self.parameter)).affected
    }

    func executeEach(_ sql: String, _ rows: [[StoreValue]]) throws {
        try connection.executeEach(Self.numbered(sql), rows.map { $0.map(Self.parameter) })
    }

    func lockRunsForOpening() throws {
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresRunDatabaseQueue.openingLock)])
    }

    func currentTime() throws -> Double {
        guard let text = try connection.execute("SELECT extract(epoch FROM clock_timestamp())::float8").scalar,
            let seconds = Double(text)
        else { throw RunStoreError(.database, runID: nil, "the PostgreSQL server returned no time") }
        return seconds
    }

    var claimClause: String { " FOR UPDATE SKIP LOCKED" }

    private static func parameter(_ value: StoreValue) -> PostgresValue {
        switch value {
        case .null: return .null
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .text(let value): return .text(value)
        }
    }

    /// `sql` with each `?` outside quotes replaced by `$n`, counting from 1.
    static func numbered(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        var quote: Character? = nil
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                out.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                out.append(character)
            } else if character == "?" {
                count += 1
                out += "$\(count)"
            } else {
                out.append(character)
            }
        }
        return out
    }
}
