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

    /// By default the WAL is copied back on the checkpointer's connection as commits add frames, the writer
    /// restarts the log at ``CoreStore/walRestartFrames``, and the close leaves no log; switched off, the
    /// writer's automatic checkpoint does it all. Either way every row is in the database file once closed,
    /// where an operator who copies `core.sqlite` alone finds it.
    @Test func theLogIsCopiedBackInTheBackgroundWhenOnAndByTheWriterWhenOff() async throws {
        var off = CoreStore.Tuning.default
        off.checkpointsInBackground = false
        for (tuning, background) in [(CoreStore.Tuning.default, true), (off, false)] {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "walletops-wal-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: url) }
            let database = url.appendingPathComponent("core.sqlite").path
            weak var closing: CoreStore?
            let rows = try await Self.fillStore(at: database, tuning, background: background) { closing = $0 }
            // The last reference may be the flusher thread's, ending its pass after the answer: the store
            // closes there, and its last connection copies the rest of the log and removes it.
            let deadline = ContinuousClock.now + .seconds(10)
            let log = database + "-wal"
            while (closing != nil || FileManager.default.fileExists(atPath: log)) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(closing == nil, "the store was not released")
            #expect(!FileManager.default.fileExists(atPath: log), "the close left a log")
            let reopened = try SQLiteDatabase(
                path: database,
                configuration: .init(
                    flags: [.readOnly], walMode: false, synchronous: .normal, busyTimeoutMilliseconds: 100,
                    foreignKeys: false))
            #expect(try reopened.scalarInt("SELECT count(*) FROM settings WHERE key LIKE 'k%'") == Int64(rows))
        }
    }

    /// Opens a store at `path` (handed to `opened`), commits page-sized rows past the background interval
    /// several times and past the restart, checks how the log was copied, and lets the store go; returns the
    /// rows written.
    private static func fillStore(
        at path: String, _ tuning: CoreStore.Tuning, background: Bool, opened: (CoreStore) -> Void
    ) async throws -> Int {
        let store = try CoreStore(url: URL(fileURLWithPath: path), tuning: tuning)
        opened(store)
        #expect((store.checkpointer != nil) == background)
        let autocheckpoint = try store.sync { db in try db.scalarInt("PRAGMA wal_autocheckpoint") }
        #expect(autocheckpoint == (background ? 0 : Int64(CoreStore.walRestartFrames)))
        let commits = CoreStore.walRestartFrames / 1000 + 3
        for commit in 0..<commits {
            try await store.write(weight: CoreStore.groupWeightLimit) { db in
                for row in 0..<1000 { try db.setSetting("k\(commit)-\(row)", String(repeating: "x", count: 3000)) }
            }
        }
        if let checkpointer = store.checkpointer {
            checkpointer.drain()
            // The copy at the open, and about one per interval of frames committed.
            #expect(checkpointer.completedCopies > commits * 1000 / CoreStore.backgroundCheckpointFrames / 2)
        }
        // The log restarted: it never held every commit's frames (a page and a frame header each). When it
        // restarts depends on the background copy's pace (a writer restarts it only when every frame was
        // copied back as it begins), so on a loaded machine well past the restart interval.
        let walBytes = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(walBytes < commits * 1000 * (4096 + 24), "\(walBytes)")
        return commits * 1000
    }
}
