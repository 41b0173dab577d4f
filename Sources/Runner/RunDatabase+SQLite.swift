import Foundation
import SQLiteKit

/// The run store in one SQLite file: the embedded default (WAL, one writer connection).
struct SQLiteRunDatabaseQueue: RunDatabaseQueue {
    let queue: DatabaseQueue

    /// The page cache, in KiB: above SQLite's default, and no larger, since a larger one grows the peak
    /// memory with the run without speed (docs/engine.md "Performance" has the measurement).
    static let pageCacheKibibytes = 4 * 1024

    /// Opens (creating and migrating) the file at `path` with a page cache of `pageCacheKibibytes` (nil:
    /// SQLite's default, `WALLETOPS_TUNING_OFF=run-store-page-cache`).
    init(path: String, pageCacheKibibytes: Int? = Self.pageCacheKibibytes) throws {
        var configuration = SQLiteDatabase.Configuration.default
        configuration.cacheKibibytes = pageCacheKibibytes
        queue = try DatabaseQueue(path: path, configuration: configuration, migrations: RunStoreSchema.sqlite)
    }

    var location: String { queue.path }

    func read<T: Sendable>(_ body: @escaping @Sendable (any RunDatabase) throws -> T) async throws -> T {
        try await queue.read { db in try body(SQLiteRunDatabase(db: db)) }
    }

    /// An immediate transaction: it takes SQLite's write lock first, so a transaction that reads and then
    /// writes never fails its upgrade under another process.
    func write<T: Sendable>(_ body: @escaping @Sendable (any RunDatabase) throws -> T) async throws -> T {
        try await queue.write { db in try body(SQLiteRunDatabase(db: db)) }
    }
}

/// A run-store connection on SQLite: statements through the connection's statement cache.
struct SQLiteRunDatabase: RunDatabase {
    let db: SQLiteDatabase

    func rows(_ sql: String, _ values: [StoreValue]) throws -> [[StoreValue]] {
        let statement = try bound(sql, values)
        defer { statement.reset() }
        var out: [[StoreValue]] = []
        let columns = statement.columnCount
        while try statement.step() { out.append((0..<columns).map { Self.value(statement, at: $0) }) }
        return out
    }

    @discardableResult func execute(_ sql: String, _ values: [StoreValue]) throws -> Int {
        let statement = try bound(sql, values)
        defer { statement.reset() }
        while try statement.step() {}
        return db.changes
    }

    func executeEach(_ sql: String, _ rows: [[StoreValue]]) throws {
        let statement = try db.cachedStatement(sql)
        defer { statement.reset() }
        for values in rows {
            try Self.bind(statement, values)
            while try statement.step() {}
            statement.reset()
        }
    }

    /// Nothing to take: the store's write transactions are immediate, so they already run one at a time.
    func lockRunsForOpening() throws {}

    func currentTime() throws -> Double { Date().timeIntervalSince1970 }

    var claimClause: String { "" }

    private func bound(_ sql: String, _ values: [StoreValue]) throws -> Statement {
        let statement = try db.cachedStatement(sql)
        try Self.bind(statement, values)
        return statement
    }

    private static func bind(_ statement: Statement, _ values: [StoreValue]) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .null: try statement.bindNull(at: index)
            case .integer(let value): try statement.bind(value, at: index)
            case .real(let value): try statement.bind(value, at: index)
            case .text(let value): try statement.bind(value, at: index)
            }
        }
    }

    private static func value(_ statement: Statement, at index: Int32) -> StoreValue {
        switch statement.value(at: index) {
        case .null: return .null
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .text(let value): return .text(value)
        case .blob: return .null  // the run store keeps no blobs
        }
    }
}
