import Foundation
import SQLiteKit
import Testing

/// The WAL hooks of SQLiteKit: a commit observer in place of the automatic checkpoint, and a checkpointer
/// that copies the log back on a connection of its own.
@Suite struct WALCheckpointTests {
    /// A new WAL database with the table ``insert(_:into:)`` fills.
    static func database(_ dir: TempDirectory) throws -> SQLiteDatabase {
        let db = try SQLiteDatabase(path: dir.path("w.sqlite"))
        try db.execute("CREATE TABLE t(v BLOB)")
        return db
    }

    /// One transaction of `rows` rows of 3,000 bytes: a page each.
    static func insert(_ rows: Int, into db: SQLiteDatabase) throws {
        try db.transaction(.immediate) {
            for _ in 0..<rows { try db.execute("INSERT INTO t VALUES (zeroblob(3000))") }
        }
    }

    /// The frames of `path`'s WAL file, from its size (32-byte header, 24 + page bytes a frame).
    static func walFrames(_ path: String, pageSize: Int = 4096) -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        return size <= 32 ? 0 : (size - 32) / (24 + pageSize)
    }

    @Test func theObserverSeesEachCommitsFramesAndRestartsTheLogWhenItSaysSo() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let db = try Self.database(dir)
        var seen: [Int] = []
        db.observeWALCommits { frames in
            seen.append(frames)
            return frames >= 300
        }
        // The automatic checkpoint is gone: SQLite reports 0 for a hook of the caller's.
        #expect(try db.scalarInt("PRAGMA wal_autocheckpoint") == 0)
        for _ in 0..<4 { try Self.insert(100, into: db) }
        #expect(seen.count == 4)
        #expect(seen[0] < seen[1] && seen[1] < seen[2], "\(seen)")
        #expect(seen[2] >= 300)
        // The third commit's checkpoint copied the log back: the fourth wrote it from its start.
        #expect(seen[3] < seen[2], "\(seen)")
        // Without the restart the log would hold four commits' frames.
        #expect(Self.walFrames(db.path) < seen[2] + 10)
    }

    @Test func aPassiveCheckpointCopiesEveryFrameWhenNothingReads() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let db = try Self.database(dir)
        db.observeWALCommits { _ in false }
        try Self.insert(200, into: db)
        let (frames, copied) = try db.checkpointPassively()
        #expect(frames >= 200)
        #expect(copied == frames)
    }

    @Test func theCheckpointerCopiesOnItsOwnConnectionAndCoalescesRequests() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let db = try Self.database(dir)
        db.observeWALCommits { _ in false }
        let checkpointer = try WALCheckpointer(path: db.path, configuration: .default)
        try Self.insert(200, into: db)
        checkpointer.drain()
        #expect(checkpointer.completedCopies == 0)
        checkpointer.request()
        checkpointer.drain()
        #expect(checkpointer.completedCopies == 1)
        // Copied: the writer's own checkpoint finds nothing left to copy.
        let (frames, copied) = try db.checkpointPassively()
        #expect(frames >= 200 && copied == frames)
        // Requests made while one is queued are one copy; the copies after the drain a new one.
        let before = checkpointer.completedCopies
        for _ in 0..<50 { checkpointer.request() }
        checkpointer.drain()
        #expect(checkpointer.completedCopies - before >= 1)
        #expect(checkpointer.completedCopies - before < 50)
    }

    @Test func aTruncatingCheckpointEmptiesTheLogAndTheDataStays() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let db = try Self.database(dir)
        db.observeWALCommits { _ in false }
        let checkpointer = try WALCheckpointer(path: db.path, configuration: .default)
        try Self.insert(200, into: db)
        #expect(Self.walFrames(db.path) >= 200)
        #expect(await checkpointer.truncate())
        let size = try FileManager.default.attributesOfItem(atPath: db.path + "-wal")[.size] as? Int
        #expect(size == 0)
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 200)
        // The store goes on: the next commit writes the log from its start.
        try Self.insert(10, into: db)
        #expect(Self.walFrames(db.path) >= 10 && Self.walFrames(db.path) < 20)
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 210)
    }

    /// A reader in the middle of a transaction keeps its frames: the truncation copies what it can and gives
    /// up at once, not after the 5 s busy timeout; the busy handler is back for the connection's next call.
    @Test func aTruncatingCheckpointGivesUpAtOnceBesideAReader() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let db = try Self.database(dir)
        db.observeWALCommits { _ in false }
        try Self.insert(100, into: db)
        let reader = try SQLiteDatabase(path: db.path)
        try reader.execute("BEGIN")
        #expect(try reader.scalarInt("SELECT count(*) FROM t") == 100)
        try Self.insert(100, into: db)
        let started = ContinuousClock.now
        #expect(try db.checkpointTruncating() == false)
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(Self.walFrames(db.path) >= 200)
        try reader.execute("COMMIT")
        #expect(try db.checkpointTruncating())
        #expect(Self.walFrames(db.path) == 0)
    }
}
