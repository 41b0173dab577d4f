import Foundation
import SQLiteKit
import Testing

@testable import OMSCore

/// Each of the store's tuning mechanisms really switches off (``CoreStore/Tuning``), and the store works the
/// same without it.
@Suite struct CoreStoreTuningTests {
    /// A store with `tuning` in a new temporary directory (the caller removes `url`).
    static func temporaryStore(_ tuning: CoreStore.Tuning) throws -> (store: CoreStore, url: URL) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("walletops-tuning-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return (try CoreStore(url: url.appendingPathComponent("core.sqlite"), tuning: tuning), url)
    }

    /// The writer's `cache_size`: the tuned size by default, SQLite's own default when switched off.
    @Test func pageCacheIsSQLitesDefaultWhenOff() throws {
        let sqliteDefault = try SQLiteDatabase(path: ":memory:").scalarInt("PRAGMA cache_size")
        var off = CoreStore.Tuning.default
        off.pageCacheKibibytes = nil
        for (tuning, expected) in [(CoreStore.Tuning.default, Int64(-4 * 1024)), (off, sqliteDefault)] {
            let (store, url) = try Self.temporaryStore(tuning)
            defer { try? FileManager.default.removeItem(at: url) }
            #expect(try store.sync { db in try db.scalarInt("PRAGMA cache_size") } == expected)
        }
        #expect(sqliteDefault != -4 * 1024)
    }

    /// The group commits run on the store's own thread by default, on a dispatch queue's worker when
    /// switched off; the writes commit either way.
    @Test func groupCommitsLeaveTheFlusherThreadWhenOff() async throws {
        var off = CoreStore.Tuning.default
        off.flushesOnOwnThread = false
        for (tuning, onFlusherThread) in [(CoreStore.Tuning.default, true), (off, false)] {
            let (store, url) = try Self.temporaryStore(tuning)
            defer { try? FileManager.default.removeItem(at: url) }
            let threadName = try await store.write { db in
                try db.setSetting("k", "v")
                return Thread.current.name
            }
            #expect((threadName == CoreStore.flusherThreadName) == onFlusherThread, "\(String(describing: threadName))")
            #expect(try await store.read { db in try db.setting("k") } == "v")
        }
    }

    /// A bulk group commit gives freed memory back by default, and not when switched off; a light one never.
    @Test func heapTrimIsNotCalledWhenOff() async throws {
        var off = CoreStore.Tuning.default
        off.returnsFreedMemoryAfterBulkCommits = false
        for (tuning, trims) in [(CoreStore.Tuning.default, 1), (off, 0)] {
            let (store, url) = try Self.temporaryStore(tuning)
            defer { try? FileManager.default.removeItem(at: url) }
            try await store.write { db in try db.setSetting("light", "1") }
            #expect(store.heapTrims == 0)
            try await store.write(weight: CoreStore.groupWeightLimit) { db in try db.setSetting("bulk", "1") }
            #expect(store.heapTrims == trims)
            #expect(store.commits == 2)
        }
    }
}
