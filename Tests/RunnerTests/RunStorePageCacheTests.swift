import Foundation
import SQLiteKit
import Testing

@testable import Runner

/// The SQLite run store's page cache: its own size by default, SQLite's default when switched off
/// (`WALLETOPS_TUNING_OFF=run-store-page-cache`).
@Suite struct RunStorePageCacheTests {
    @Test func theStoresCacheOrSQLitesDefault() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let sqliteDefault = try SQLiteDatabase(path: ":memory:").scalarInt("PRAGMA cache_size")
        #expect(sqliteDefault != -Int64(RunStore.sqlitePageCacheKibibytes))
        for (name, kibibytes, expected) in [
            ("tuned.sqlite", RunStore.sqlitePageCacheKibibytes, -Int64(RunStore.sqlitePageCacheKibibytes)),
            ("default.sqlite", nil, sqliteDefault),
        ] {
            let store = try RunStore(location: dir.path(name), sqlitePageCacheKibibytes: kibibytes)
            let queue = try #require(store.queue as? SQLiteRunDatabaseQueue)
            #expect(try queue.queue.sync { db in try db.scalarInt("PRAGMA cache_size") } == expected, "\(name)")
        }
    }
}
