import Foundation
import Synchronization

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

    /// The other unfinished runs of the playbook, left as they are (other work, or another run of it),
    /// with what differs: for the notice that names them and how to return to them.
    public let otherUnfinished: [UnfinishedRun]

    /// The watermarks this handle has committed (flushes run on the database queue, one at a time).
    let writtenMarks = Mutex<[String: Int]>([:])

    init(store: RunStore, runID: Int64, isResumed: Bool, retryFailed: Bool, otherUnfinished: [UnfinishedRun] = []) {
        self.store = store
        self.runID = runID
        self.isResumed = isResumed
        self.retryFailed = retryFailed
        self.otherUnfinished = otherUnfinished
    }

    /// The checkpointed state of an item found at resume.
    struct Checkpoint: Sendable {
        var state: ItemState
        var attempts: Int
        var errorClass: String?
        /// What a chunk step's sinks need to write the item's rows again: its message and stored outputs.
        var message: String? = nil
        var resultJSON: String? = nil
    }

    /// A step's durable watermark: every item with a position below `watermark` is finished, and
    /// `keysHash` is the FNV-1a hash of their keys in order (to notice an input that changed under it).
    struct Mark: Sendable, Equatable {
        var watermark: Int
        var keysHash: UInt64
    }

    /// One item state change, written in a batch.
    struct Update: Sendable {
        var step: String
        var key: String
        /// The item's position in its step's input (0-based).
        var index: Int
        var state: ItemState
        var attempts: Int
        var errorClass: String?
        var message: String?
        var resultJSON: String?
        var idempotencyKey: String?
        /// Write only when the item has no state yet (used for `skipped`).
        var insertOnly = false
        /// An outcome that needs no row once the step's watermark passes it: succeeded, no stored
        /// outputs, not side-effecting, and no earlier row to overwrite.
        var coveredByWatermark = false
        /// A covered success's outputs (non-secret, redacted), stored only if it ever gets a row.
        var coveredOutputs: [String: String] = [:]
    }

    static let upsertSQL = """
        INSERT INTO items(run_id, step, item_key, state, attempts, error_class, message, result, idempotency_key, updated_at,
          item_index) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(run_id, step, item_key) DO UPDATE SET state = excluded.state, attempts = excluded.attempts,
          item_index = excluded.item_index,
          error_class = excluded.error_class, message = excluded.message, result = excluded.result,
          idempotency_key = coalesce(excluded.idempotency_key, items.idempotency_key), updated_at = excluded.updated_at
        """

    static let insertOnlySQL = """
        INSERT INTO items(run_id, step, item_key, state, attempts, error_class, message, result,
          idempotency_key, updated_at, item_index) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(run_id, step, item_key) DO NOTHING
        """

    /// A watermark only moves forward (a flush racing a resumed filler may compute a lower one).
    static let markSQL = """
        INSERT INTO step_marks(run_id, step, watermark, keys_hash) VALUES (?, ?, ?, ?)
        ON CONFLICT(run_id, step) DO UPDATE SET watermark = excluded.watermark, keys_hash = excluded.keys_hash
        WHERE excluded.watermark > step_marks.watermark
        """

    /// Writes `updates` as rows in one transaction and refreshes the lock heartbeat. Returns when committed.
    func write(_ updates: [Update]) async throws {
        let runID = runID
        try await store.queue.write { db in
            try Self.writeRows(db, runID: runID, updates)
            try Self.heartbeat(db, runID: runID)
        }
    }

    /// Takes the buffered rows and the steps' watermarks with `take` ON the database queue (so batches
    /// commit in the order they were taken, and a watermark is never committed before the outcomes below
    /// it; `take` leaves out the rows its watermark makes redundant), and writes them in one transaction.
    func flush(
        _ take:
            @escaping @Sendable () -> (
                updates: [Update], marks: [String: Mark], sinks: [CheckpointBuffer.SinkBatch]
            )
    ) async throws {
        let runID = runID
        try await store.queue.write { db in
            let (updates, marks, sinks) = take()
            // The sinks' rows go to their files first: the offsets committed below never pass what was
            // written, and a crash before the commit leaves bytes past them, which a resume truncates.
            try Self.appendSinks(db, runID: runID, sinks)
            // Nothing new (a tick in a quiet moment): no transaction.
            let written = self.writtenMarks.withLock { $0 }
            let moved = marks.filter { $0.value.watermark > (written[$0.key] ?? 0) }
            guard !updates.isEmpty || !moved.isEmpty else { return }
            try Self.writeRows(db, runID: runID, updates)
            try db.executeEach(
                Self.markSQL,
                moved.map { step, value in
                    [
                        .integer(runID), .text(step), StoreValue(value.watermark),
                        .integer(Int64(bitPattern: value.keysHash)),
                    ]
                })
            try Self.heartbeat(db, runID: runID)
            self.writtenMarks.withLock { written in
                for (step, value) in moved { written[step] = max(written[step] ?? 0, value.watermark) }
            }
        }
    }

    static let sinkSQL = """
        INSERT INTO step_sinks(run_id, step, sink, position, byte_offset) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(run_id, step, sink) DO UPDATE SET position = excluded.position, byte_offset = excluded.byte_offset
        """

    /// Appends the batches' rows to their files and stores each file's new offset and position.
    static func appendSinks(_ db: any RunDatabase, runID: Int64, _ batches: [CheckpointBuffer.SinkBatch]) throws {
        guard !batches.isEmpty else { return }
        var rows: [[StoreValue]] = []
        for batch in batches {
            try batch.files.append(batch.bytes)
            for (sink, offset) in batch.files.offsets.enumerated() {
                rows.append([
                    .integer(runID), .text(batch.step), StoreValue(sink), StoreValue(batch.position), .integer(offset),
                ])
            }
        }
        try db.executeEach(Self.sinkSQL, rows)
    }

    /// The committed state of `step`'s sinks: by sink index, the position their rows reach and the byte
    /// offset there.
    func sinkMarks(step: String) async throws -> [Int: (position: Int, offset: Int64)] {
        let runID = runID
        return try await store.queue.read { db in
            var out: [Int: (position: Int, offset: Int64)] = [:]
            for row in try db.rows(
                "SELECT sink, position, byte_offset FROM step_sinks WHERE run_id = ? AND step = ?",
                [.integer(runID), .text(step)])
            {
                out[row[0].int] = (row[1].int, row[2].int64 ?? 0)
            }
            return out
        }
    }

    private static func writeRows(_ db: any RunDatabase, runID: Int64, _ updates: [Update]) throws {
        guard !updates.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        var upserts: [[StoreValue]] = []
        var inserts: [[StoreValue]] = []
        // Key order walks the items index once instead of jumping around it.
        for update in updates.sorted(by: { ($0.step, $0.key) < ($1.step, $1.key) }) {
            let row: [StoreValue] = [
                .integer(runID), .text(update.step), .text(update.key), .text(update.state.rawValue),
                StoreValue(update.attempts), StoreValue(update.errorClass), StoreValue(update.message),
                StoreValue(update.resultJSON), StoreValue(update.idempotencyKey), .real(now), StoreValue(update.index),
            ]
            if update.insertOnly { inserts.append(row) } else { upserts.append(row) }
        }
        if !upserts.isEmpty { try db.executeEach(Self.upsertSQL, upserts) }
        if !inserts.isEmpty { try db.executeEach(Self.insertOnlySQL, inserts) }
    }

    private static func heartbeat(_ db: any RunDatabase, runID: Int64) throws {
        try db.execute(
            "UPDATE runs SET lock_heartbeat = ? WHERE id = ?", [.real(Date().timeIntervalSince1970), .integer(runID)])
    }

    /// The durable watermark of `step`, if one was written.
    func mark(step: String) async throws -> Mark? {
        let runID = runID
        return try await store.queue.read { db in
            try db.rows(
                "SELECT watermark, keys_hash FROM step_marks WHERE run_id = ? AND step = ?",
                [.integer(runID), .text(step)]
            ).first.map { Mark(watermark: $0[0].int, keysHash: UInt64(bitPattern: $0[1].int64 ?? 0)) }
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

    /// The rows of `step` whose items sit at positions `positions`, by key (one indexed range read).
    func lookup(step: String, positions: Range<Int>) async throws -> [String: Checkpoint] {
        let runID = runID
        return try await store.queue.read { db in
            let rows = try db.rows(
                "SELECT item_key, state, attempts, error_class, message, result FROM items "
                    + "WHERE run_id = ? AND step = ? AND item_index >= ? AND item_index < ?",
                [.integer(runID), .text(step), StoreValue(positions.lowerBound), StoreValue(positions.upperBound)])
            var out: [String: Checkpoint] = [:]
            for row in rows {
                if let state = ItemState(rawValue: row[1].string ?? "") {
                    out[row[0].string ?? ""] = Checkpoint(
                        state: state, attempts: row[2].int, errorClass: row[3].string, message: row[4].string,
                        resultJSON: row[5].string)
                }
            }
            return out
        }
    }

    /// The items of `step` at `positions` that did not succeed (rejected, failed, or not finished), in
    /// position order, with their position, key and state only: what a resume's skip of the rows below the
    /// watermark needs to count them, read for many batches at once (a succeeded row, most of them, is not
    /// read at all, nor any row's outputs).
    func unsucceeded(step: String, positions: Range<Int>) async throws -> [(index: Int, key: String, state: ItemState)]
    {
        let runID = runID
        return try await store.queue.read { db in
            let rows = try db.rows(
                "SELECT item_index, item_key, state FROM items "
                    + "WHERE run_id = ? AND step = ? AND item_index >= ? AND item_index < ? AND state <> 'succeeded' "
                    + "ORDER BY item_index",
                [.integer(runID), .text(step), StoreValue(positions.lowerBound), StoreValue(positions.upperBound)])
            return rows.compactMap { row in
                guard let state = ItemState(rawValue: row[2].string ?? "") else { return nil }
                return (row[0].int, row[1].string ?? "", state)
            }
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

/// An unfinished run that opening another left as it is.
public struct UnfinishedRun: Sendable, Equatable {
    /// Its id.
    public var id: Int64
    /// How its work differs from the opened run's (empty: the same work, e.g. under `--fresh`).
    public var differences: [String]
}
