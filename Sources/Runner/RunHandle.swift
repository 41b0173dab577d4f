import Foundation
import SQLiteKit

/// An opened, locked run: what the engine checkpoints into.
public final class RunHandle: Sendable {
    /// The store.
    public let store: RunStore
    /// The run's id.
    public let runID: Int64
    /// True when this continues an earlier invocation (items may already have states).
    public let isResumed: Bool
    /// True when failed items are to be run again.
    public let retryFailed: Bool

    init(store: RunStore, runID: Int64, isResumed: Bool, retryFailed: Bool) {
        self.store = store
        self.runID = runID
        self.isResumed = isResumed
        self.retryFailed = retryFailed
    }

    /// The checkpointed state of an item found at resume.
    struct Checkpoint: Sendable {
        var state: ItemState
        var attempts: Int
        var errorClass: String?
    }

    /// One item state change, written in a batch.
    struct Update: Sendable {
        var step: String
        var key: String
        var state: ItemState
        var attempts: Int
        var errorClass: String?
        var message: String?
        var resultJSON: String?
        var idempotencyKey: String?
        /// Write only when the item has no state yet (used for `skipped`).
        var insertOnly = false
    }

    static let upsertSQL = """
        INSERT INTO items(run_id, step, item_key, state, attempts, error_class, message, result, idempotency_key, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(run_id, step, item_key) DO UPDATE SET state = excluded.state, attempts = excluded.attempts,
          error_class = excluded.error_class, message = excluded.message, result = excluded.result,
          idempotency_key = coalesce(excluded.idempotency_key, items.idempotency_key), updated_at = excluded.updated_at
        """

    static let insertOnlySQL = """
        INSERT OR IGNORE INTO items(run_id, step, item_key, state, attempts, error_class, message, result,
          idempotency_key, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Writes `updates` in one transaction and refreshes the lock heartbeat. Returns when committed.
    func write(_ updates: [Update]) async throws {
        let runID = runID
        try await store.queue.write { db in
            let now = Date().timeIntervalSince1970
            let upsert = try db.cachedStatement(Self.upsertSQL)
            let insert = try db.cachedStatement(Self.insertOnlySQL)
            // Key order walks the items index once instead of jumping around it.
            for update in updates.sorted(by: { ($0.step, $0.key) < ($1.step, $1.key) }) {
                let statement = update.insertOnly ? insert : upsert
                try statement.bind(runID, at: 1)
                try statement.bind(update.step, at: 2)
                try statement.bind(update.key, at: 3)
                try statement.bind(update.state.rawValue, at: 4)
                try statement.bind(update.attempts, at: 5)
                try statement.bind(update.errorClass, at: 6)
                try statement.bind(update.message, at: 7)
                try statement.bind(update.resultJSON, at: 8)
                try statement.bind(update.idempotencyKey, at: 9)
                try statement.bind(now, at: 10)
                try statement.step()
                statement.reset()
            }
            try db.execute("UPDATE runs SET lock_heartbeat = ? WHERE id = ?", [.real(now), .integer(runID)])
        }
    }

    /// Whether any item of `step` has a checkpoint in this run.
    func hasItems(step: String) async throws -> Bool {
        let runID = runID
        return try await store.queue.read { db in
            try db.scalarInt(
                "SELECT 1 FROM items WHERE run_id = ? AND step = ? LIMIT 1", [.integer(runID), .text(step)])
                != nil
        }
    }

    /// The checkpoints of `keys` in `step` (absent keys have none).
    func lookup(step: String, keys: [String]) async throws -> [String: Checkpoint] {
        let runID = runID
        return try await store.queue.read { db in
            let statement = try db.cachedStatement(
                "SELECT state, attempts, error_class FROM items WHERE run_id = ? AND step = ? AND item_key = ?")
            var out: [String: Checkpoint] = [:]
            for key in keys {
                try statement.bind(runID, at: 1)
                try statement.bind(step, at: 2)
                try statement.bind(key, at: 3)
                if try statement.step(), let state = ItemState(rawValue: statement.string(at: 0) ?? "") {
                    out[key] = Checkpoint(
                        state: state, attempts: Int(statement.int64(at: 1)), errorClass: statement.string(at: 2))
                }
                statement.reset()
            }
            return out
        }
    }

    /// Records a step's status and an event.
    func recordStep(_ step: String, status: String, message: String? = nil) async throws {
        let runID = runID
        try await store.queue.write { db in
            try db.execute(
                "INSERT INTO steps(run_id, step, status, message) VALUES (?, ?, ?, ?) "
                    + "ON CONFLICT(run_id, step) DO UPDATE SET status = excluded.status, message = excluded.message",
                [.integer(runID), .text(step), .text(status), message.map { .text($0) } ?? .null])
            try RunStore.event(db, runID: runID, kind: "step-\(status)", step: step, message: message)
        }
    }

    /// Marks the run ended with `status`, stores the item counts, and releases the lock.
    func finish(status: RunStatus, message: String?) async throws {
        let runID = runID
        try await store.queue.write { db in
            let counts = try RunStore.counts(db, runID: runID, step: nil)
            try db.execute(
                """
                UPDATE runs SET status = ?, ended_at = ?, message = ?, pending = ?, started = ?, succeeded = ?,
                  failed = ?, rejected = ?, skipped = ?, lock_pid = NULL, lock_host = NULL WHERE id = ?
                """,
                [
                    .text(status.rawValue), .real(Date().timeIntervalSince1970), message.map { .text($0) } ?? .null,
                    .integer(Int64(counts[.pending] ?? 0)), .integer(Int64(counts[.started] ?? 0)),
                    .integer(Int64(counts[.succeeded] ?? 0)), .integer(Int64(counts[.failed] ?? 0)),
                    .integer(Int64(counts[.rejected] ?? 0)), .integer(Int64(counts[.skipped] ?? 0)), .integer(runID),
                ])
            try RunStore.event(
                db, runID: runID, kind: "finished", message: status.rawValue + (message.map { ": \($0)" } ?? ""))
        }
    }
}
