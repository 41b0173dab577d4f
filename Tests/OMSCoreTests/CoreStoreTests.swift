import Foundation
import SQLiteKit
import Testing

@testable import OMSCore

/// The store's group commit: concurrent writes share transactions, yet each stands or falls alone.
@Suite struct CoreStoreTests {
    struct Refused: Error {}

    /// A store in a new temporary directory (the caller removes `url`).
    static func temporaryStore() throws -> (store: CoreStore, url: URL) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("walletops-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return (try CoreStore(url: url.appendingPathComponent("core.sqlite")), url)
    }

    @Test func concurrentWritesCommitTogetherAndFailAlone() async throws {
        let (store, url) = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: url) }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<64 {
                group.addTask {
                    do {
                        try await store.write { db in
                            try db.execute(
                                "INSERT INTO settings(key, value) VALUES (?, ?)", [.text("k\(index)"), .text("v")])
                            // Every third write fails after changing the table; a duplicate key fails in SQLite.
                            if index % 3 == 0 { throw Refused() }
                            if index % 5 == 0 {
                                try db.execute(
                                    "INSERT INTO settings(key, value) VALUES (?, ?)", [.text("k\(index)"), .text("w")])
                            }
                        }
                        return (index, true)
                    } catch {
                        return (index, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        let expected = Dictionary(uniqueKeysWithValues: (0..<64).map { ($0, $0 % 3 != 0 && $0 % 5 != 0) })
        #expect(outcomes == expected)
        let stored = try await store.read { db in
            try db.rows("SELECT key FROM settings ORDER BY key").compactMap { row -> String? in
                if case .text(let key) = row[0] { return key }
                return nil
            }
        }
        #expect(Set(stored) == Set(expected.filter(\.value).keys.map { "k\($0)" }))
        // A write after the batches still works, and reads see it.
        try await store.write { db in try db.setSetting("after", "1") }
        #expect(try await store.read { db in try db.setting("after") } == "1")
    }

    /// Light writes queued while a group runs join its transaction before its COMMIT (one commit, one
    /// fsync, instead of one more commit after it); a heavy write queued behind them waits for the next
    /// transaction; a light write that fails still fails alone.
    @Test func lightWritesQueuedDuringAGroupShareItsCommit() async throws {
        let (store, url) = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: url) }
        let before = store.commits
        let held = await HeldWriter(store) { db in try db.setSetting("held", "1") }
        // Queued while the held write runs: three light writes, one light write that fails, one heavy one.
        let light = (0..<3).map { index in store.submit { db in try db.setSetting("light\(index)", "1") } }
        let failing = store.submit { db -> Void in
            try db.setSetting("failing", "1")
            throw Refused()
        }
        let heavy = store.submit(weight: CoreStore.groupWeightLimit + 1) { db in try db.setSetting("heavy", "1") }
        held.release()
        #expect(try await held.ticket.value())
        for ticket in light { try await ticket.value() }
        await #expect(throws: Refused.self) { try await failing.value() }
        try await heavy.value()
        #expect(store.commits - before == 2, "the held and the light writes in one transaction, the heavy one next")
        let stored = try await store.read { db in
            try ["held", "light0", "light1", "light2", "failing", "heavy"].map { try db.setting($0) != nil }
        }
        #expect(stored == [true, true, true, true, false, true])
    }

    /// Reads run on their own connection: one finishes while a write holds the writer, seeing the last
    /// commit and not the open transaction; a submitted write keeps its place and answers later.
    @Test func readsDoNotWaitForTheWriterAndSubmittedWritesKeepTheirOrder() async throws {
        let (store, url) = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: url) }
        try await store.write { db in try db.setSetting("state", "committed") }
        // Holds the writer until the read below has finished (30 s at most, then the test fails).
        let held = await HeldWriter(store) { db in try db.setSetting("state", "open") }
        let after = store.submit { db in try db.setting("state") }
        let seen = try await store.read { db in try db.setting("state") }
        held.release()
        #expect(seen == "committed")
        #expect(try await held.ticket.value(), "the read waited for the writer")
        #expect(try await after.value() == "open")
        #expect(try await after.value() == "open", "a ticket answers every await")
    }
}
