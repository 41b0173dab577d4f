import Foundation

/// A worker's claim on one chunk of a step's items (positions `first ..< first + count`), good while the
/// chunk's epoch is still `epoch`: every claim raises the epoch, so a holder that lost the chunk (its lease
/// expired and another worker took it) is refused on its next write, whatever its own clock says.
public struct ChunkLease: Sendable, Equatable {
    /// The run.
    public var runID: Int64
    /// The step.
    public var step: String
    /// The chunk's index: its items are at positions `chunk * chunkSize` up to the next chunk's.
    public var chunk: Int
    /// The step's chunk size, in items.
    public var chunkSize: Int
    /// The fencing token: the number of claims of this chunk so far.
    public var epoch: Int64
    /// Who holds it (`host:pid:...`), for `status` and the events.
    public var owner: String
    /// True when an earlier holder's lease lapsed on it: the items that holder had in flight are probed
    /// (the intent/probe protocol) before anything is sent again.
    public var isRescue: Bool

    /// The positions of the chunk's items (the last chunk may hold fewer).
    public var positions: Range<Int> { chunk * chunkSize..<(chunk + 1) * chunkSize }
}

/// Chunk leases (docs/engine.md "Chunk leases"): how several workers, on one machine or several sharing a
/// PostgreSQL store, split a step's items. All times are the database's, never a worker's clock.
extension RunStore {
    /// This process as a chunk lease holder, `host:pid`: the lock's holder and its leases' owner are one
    /// name, so taking over a dead holder's lock lapses its leases too.
    public var leaseOwner: String { "\(host):\(pid)" }

    /// Declares that `step` of run `runID` is worked in chunks of `chunkSize` items, `total` of them in
    /// all when known. The first declaration wins (workers joining later find it); a known total is kept.
    public func prepareChunks(runID: Int64, step: String, chunkSize: Int, total: Int?) async throws {
        precondition(chunkSize > 0, "a chunk holds at least one item")
        try await queue.write { db in
            try db.execute(
                "INSERT INTO step_chunking(run_id, step, chunk_size, total) VALUES (?, ?, ?, ?) "
                    + "ON CONFLICT(run_id, step) DO UPDATE SET total = coalesce(step_chunking.total, excluded.total)",
                [.integer(runID), .text(step), StoreValue(chunkSize), total.map { StoreValue($0) } ?? .null])
        }
    }

    /// Records that `step` has `total` items (a worker found the end of its input).
    public func setChunkTotal(runID: Int64, step: String, total: Int) async throws {
        try await queue.write { db in
            try db.execute(
                "UPDATE step_chunking SET total = ? WHERE run_id = ? AND step = ?",
                [StoreValue(total), .integer(runID), .text(step)])
        }
    }

    /// Claims a chunk of `step` for `owner` until `lease` from now: first a chunk whose holder's lease
    /// lapsed (the lowest), else the next chunk never claimed; nil when every chunk is done or held, or
    /// when the run is not running (its own process stopped it: workers stop taking its chunks).
    ///
    /// A lapsed chunk is taken with a guarded update (still running, still lapsed, the epoch it was seen
    /// at), so a holder that completed it in the meantime keeps its completion. Rows are claimed with
    /// `FOR UPDATE SKIP LOCKED` on PostgreSQL: claimers never wait on each other's candidates.
    public func claimChunk(runID: Int64, step: String, owner: String, lease: Duration) async throws -> ChunkLease? {
        try await queue.write { db in
            guard
                let chunking = try db.rows(
                    "SELECT chunk_size FROM step_chunking WHERE run_id = ? AND step = ?",
                    [.integer(runID), .text(step)]
                ).first, let size = chunking[0].int64.map(Int.init)
            else {
                throw RunStoreError(.database, runID: runID, "step '\(step)' of run \(runID) is not worked in chunks")
            }
            guard
                try db.rows("SELECT status FROM runs WHERE id = ?", [.integer(runID)]).first?[0].string
                    == RunStatus.running.rawValue
            else { return nil }
            let now = try db.currentTime()
            let until = now + lease.seconds
            let lapsed = try db.rows(
                "SELECT chunk, epoch FROM chunk_leases WHERE run_id = ? AND step = ? AND state = 'running' "
                    + "AND lease_until < ? ORDER BY chunk LIMIT 1" + db.claimClause,
                [.integer(runID), .text(step), .real(now)])
            if let row = lapsed.first, let chunk = row[0].int64, let epoch = row[1].int64 {
                let taken = try db.execute(
                    """
                    UPDATE chunk_leases SET epoch = epoch + 1, owner = ?, lease_until = ?
                    WHERE run_id = ? AND step = ? AND chunk = ? AND epoch = ? AND state = 'running' AND lease_until < ?
                    """,
                    [
                        .text(owner), .real(until), .integer(runID), .text(step), .integer(chunk), .integer(epoch),
                        .real(now),
                    ])
                if taken == 1 {
                    try Self.event(
                        db, runID: runID, kind: "chunk-rescued", step: step,
                        message: "chunk \(chunk) at epoch \(epoch + 1) by \(owner)")
                    return ChunkLease(
                        runID: runID, step: step, chunk: Int(chunk), chunkSize: size, epoch: epoch + 1, owner: owner,
                        isRescue: true)
                }
            }
            let next = try db.rows(
                """
                UPDATE step_chunking SET next_chunk = next_chunk + 1
                WHERE run_id = ? AND step = ? AND (total IS NULL OR next_chunk * chunk_size < total)
                RETURNING next_chunk - 1
                """, [.integer(runID), .text(step)])
            guard let chunk = next.first?[0].int64 else { return nil }
            try db.execute(
                "INSERT INTO chunk_leases(run_id, step, chunk, state, epoch, owner, lease_until) "
                    + "VALUES (?, ?, ?, 'running', 1, ?, ?)",
                [.integer(runID), .text(step), .integer(chunk), .text(owner), .real(until)])
            return ChunkLease(
                runID: runID, step: step, chunk: Int(chunk), chunkSize: size, epoch: 1, owner: owner, isRescue: false)
        }
    }

    /// Extends `lease` to `duration` from now (database time). False, with nothing changed, when the
    /// chunk's epoch moved on or it is done: the holder must stop working on it.
    public func renew(_ lease: ChunkLease, for duration: Duration) async throws -> Bool {
        try await queue.write { db in try Self.fence(db, lease, extendingBy: duration) }
    }

    /// Runs `body` in one transaction with `lease`'s chunk row locked, after checking that the epoch is
    /// still `lease.epoch` (and extending the lease by `duration`): the writes of a holder that lost its
    /// chunk never happen. Every write of a leased chunk (its intents, its outcomes) goes through here.
    ///
    /// - Throws: ``RunStoreError`` `.leaseLost` (nothing written) when the chunk is no longer this lease's.
    public func fenced<T: Sendable>(
        _ lease: ChunkLease, extendingBy duration: Duration,
        _ body: @escaping @Sendable (_ write: LeasedWrite) throws -> T
    ) async throws -> T {
        try await queue.write { db in
            guard try Self.fence(db, lease, extendingBy: duration) else { throw Self.leaseLost(lease) }
            return try body(LeasedWrite(db: db, lease: lease))
        }
    }

    /// Marks `lease`'s chunk done, with `updates` (its items' outcomes) and `outputs` (its rows for each
    /// of the step's output files, by the sink's index) written in the same transaction, only while the
    /// epoch holds: a chunk's outcomes and output rows are there once, or not at all.
    ///
    /// - Throws: ``RunStoreError`` `.leaseLost` (nothing written) when the chunk is no longer this lease's.
    public func complete(_ lease: ChunkLease, updates: [ItemOutcomeRow], outputs: [Int: String] = [:]) async throws {
        try await queue.write { db in
            let done = try db.execute(
                "UPDATE chunk_leases SET state = 'done' WHERE run_id = ? AND step = ? AND chunk = ? AND epoch = ? "
                    + "AND state = 'running'",
                [.integer(lease.runID), .text(lease.step), StoreValue(lease.chunk), .integer(lease.epoch)])
            guard done == 1 else { throw Self.leaseLost(lease) }
            try LeasedWrite(db: db, lease: lease).write(updates)
            // A chunk reopened by a retry replaces the rows it wrote before.
            try db.execute(
                "DELETE FROM chunk_outputs WHERE run_id = ? AND step = ? AND chunk = ?",
                [.integer(lease.runID), .text(lease.step), StoreValue(lease.chunk)])
            for (sink, rows) in outputs.sorted(by: { $0.key < $1.key }) where !rows.isEmpty {
                try db.execute(
                    "INSERT INTO chunk_outputs(run_id, step, chunk, sink, rows) VALUES (?, ?, ?, ?, ?)",
                    [.integer(lease.runID), .text(lease.step), StoreValue(lease.chunk), StoreValue(sink), .text(rows)])
            }
        }
    }

    /// Opens again the done chunks of `step` that hold failed items, for a retry of the run: they are
    /// claimed as lapsed ones are (a new epoch, their in-doubt items probed first). Returns how many.
    public func reopenFailedChunks(runID: Int64, step: String) async throws -> Int {
        try await queue.write { db in
            guard
                let size = try db.rows(
                    "SELECT chunk_size FROM step_chunking WHERE run_id = ? AND step = ?",
                    [.integer(runID), .text(step)]
                ).first?[0].int64
            else { return 0 }
            return try db.execute(
                """
                UPDATE chunk_leases SET state = 'running', lease_until = ?
                WHERE run_id = ? AND step = ? AND state = 'done' AND chunk IN (
                  SELECT DISTINCT item_index / ? FROM items WHERE run_id = ? AND step = ? AND state = 'failed')
                """,
                [
                    try db.lapsedLeaseEnd(), .integer(runID), .text(step), .integer(size), .integer(runID),
                    .text(step),
                ])
        }
    }

    /// Gives `lease`'s chunk back at once (its lease lapses now), for a holder that stops before finishing
    /// it: the next claimer rescues it (probing what was in flight) without waiting for the lease to run
    /// out. Nothing changes when the epoch moved on.
    public func release(_ lease: ChunkLease) async throws {
        try await queue.write { db in
            try db.execute(
                "UPDATE chunk_leases SET lease_until = ? WHERE run_id = ? AND step = ? AND chunk = ? AND epoch = ? "
                    + "AND state = 'running'",
                [
                    try db.lapsedLeaseEnd(), .integer(lease.runID), .text(lease.step), StoreValue(lease.chunk),
                    .integer(lease.epoch),
                ])
        }
    }

    /// How far `step`'s chunks are: how many are done, and how many the step has (nil until its total is
    /// known). The step's chunks are all done when the two are equal.
    public func chunkProgress(runID: Int64, step: String) async throws -> (done: Int, chunks: Int?) {
        try await queue.read { db in
            guard
                let row = try db.rows(
                    "SELECT chunk_size, total FROM step_chunking WHERE run_id = ? AND step = ?",
                    [.integer(runID), .text(step)]
                ).first
            else { return (0, nil) }
            let size = max(1, row[0].int)
            let chunks = row[1].int64.map { (Int($0) + size - 1) / size }
            let done =
                try db.scalarInt(
                    "SELECT count(*) FROM chunk_leases WHERE run_id = ? AND step = ? AND state = 'done' AND chunk < ?",
                    [.integer(runID), .text(step), StoreValue(chunks ?? Int(Int32.max))]) ?? 0
            return (Int(done), chunks)
        }
    }

    /// The output rows the chunks of `step` wrote for sink `sink`, in chunk order, from chunk `from` on,
    /// at most `limit` chunks' worth: pages for assembling the step's output file.
    public func chunkOutputs(runID: Int64, step: String, sink: Int, from: Int, limit: Int) async throws -> [(
        chunk: Int, rows: String
    )] {
        try await queue.read { db in
            try db.rows(
                "SELECT chunk, rows FROM chunk_outputs WHERE run_id = ? AND step = ? AND sink = ? AND chunk >= ? "
                    + "ORDER BY chunk LIMIT ?",
                [.integer(runID), .text(step), StoreValue(sink), StoreValue(from), StoreValue(limit)]
            ).map { ($0[0].int, $0[1].string ?? "") }
        }
    }

    /// Where a run's leased steps are, for `status` on any host: per step, its chunk size and total, the
    /// chunks done, and the chunks held now by each owner (lapsed ones apart: their holder stopped
    /// answering, and the next claim takes them over).
    public func leaseSummary(runID: Int64) async throws -> [LeaseSummary] {
        try await queue.read { db in
            let now = try db.currentTime()
            var out: [LeaseSummary] = []
            for row in try db.rows(
                "SELECT step, chunk_size, total FROM step_chunking WHERE run_id = ? ORDER BY step", [.integer(runID)])
            {
                let step = row[0].string ?? ""
                var summary = LeaseSummary(step: step, chunkSize: row[1].int, total: row[2].int64.map(Int.init))
                for lease in try db.rows(
                    "SELECT state, owner, lease_until FROM chunk_leases WHERE run_id = ? AND step = ?",
                    [.integer(runID), .text(step)])
                {
                    if lease[0].string == "done" {
                        summary.done += 1
                    } else if (lease[2].double ?? 0) < now {
                        summary.lapsed += 1
                    } else {
                        summary.held[lease[1].string ?? "", default: 0] += 1
                    }
                }
                out.append(summary)
            }
            return out
        }
    }

    /// The steps of unfinished runs whose chunks are not all claimed or done, or whose lease lapsed: the
    /// work a `walletops worker` can join, oldest run first.
    public func openChunkSteps() async throws -> [(runID: Int64, step: String)] {
        try await queue.read { db in
            let now = try db.currentTime()
            return try db.rows(
                """
                SELECT c.run_id, c.step FROM step_chunking c JOIN runs r ON r.id = c.run_id
                WHERE r.status = 'running' AND (
                  c.total IS NULL OR c.next_chunk * c.chunk_size < c.total
                  OR EXISTS (SELECT 1 FROM chunk_leases l WHERE l.run_id = c.run_id AND l.step = c.step
                             AND l.state = 'running' AND l.lease_until < ?))
                ORDER BY c.run_id, c.step
                """, [.real(now)]
            ).compactMap { row in row[0].int64.map { ($0, row[1].string ?? "") } }
        }
    }

    /// The number of `step`'s items in each state, as their rows say (a leased step gives every item one).
    public func itemCounts(runID: Int64, step: String) async throws -> [ItemState: Int] {
        try await queue.read { db in
            var counts: [ItemState: Int] = [:]
            for row in try db.rows(
                "SELECT state, count(*) FROM items WHERE run_id = ? AND step = ? GROUP BY state",
                [.integer(runID), .text(step)])
            {
                if let state = ItemState(rawValue: row[0].string ?? "") { counts[state] = row[1].int }
            }
            return counts
        }
    }

    /// The chunks of `step` by state and their holders, for `status` and tests.
    public func chunks(runID: Int64, step: String) async throws -> [(
        chunk: Int, state: String, epoch: Int64, owner: String
    )] {
        try await queue.read { db in
            try db.rows(
                "SELECT chunk, state, epoch, owner FROM chunk_leases WHERE run_id = ? AND step = ? ORDER BY chunk",
                [.integer(runID), .text(step)]
            ).map { ($0[0].int, $0[1].string ?? "", $0[2].int64 ?? 0, $0[3].string ?? "") }
        }
    }

    /// The number of leading items of `step` whose chunks are all done: every item below it is finished.
    public func leasedWatermark(runID: Int64, step: String) async throws -> Int {
        try await queue.read { db in
            guard
                let row = try db.rows(
                    "SELECT chunk_size, total, next_chunk FROM step_chunking WHERE run_id = ? AND step = ?",
                    [.integer(runID), .text(step)]
                ).first
            else { return 0 }
            let size = row[0].int
            let open = try db.scalarInt(
                "SELECT min(chunk) FROM chunk_leases WHERE run_id = ? AND step = ? AND state <> 'done'",
                [.integer(runID), .text(step)])
            let chunks = open.map(Int.init) ?? row[2].int
            let items = chunks * size
            return row[1].int64.map { min(items, Int($0)) } ?? items
        }
    }

    private static func fence(_ db: any RunDatabase, _ lease: ChunkLease, extendingBy duration: Duration) throws
        -> Bool
    {
        let until = try db.currentTime() + duration.seconds
        return try db.execute(
            "UPDATE chunk_leases SET lease_until = ? WHERE run_id = ? AND step = ? AND chunk = ? AND epoch = ? "
                + "AND state = 'running'",
            [.real(until), .integer(lease.runID), .text(lease.step), StoreValue(lease.chunk), .integer(lease.epoch)])
            == 1
    }

    private static func leaseLost(_ lease: ChunkLease) -> RunStoreError {
        RunStoreError(
            .leaseLost, runID: lease.runID,
            "chunk \(lease.chunk) of step '\(lease.step)' is no longer held at epoch \(lease.epoch) by \(lease.owner)")
    }
}

/// One item's outcome as a leased chunk writes it: a row of the run's items.
public struct ItemOutcomeRow: Sendable, Equatable {
    public var key: String
    /// The item's position in its step's input.
    public var index: Int
    public var state: ItemState
    public var attempts: Int
    public var errorClass: String?
    public var message: String?
    public var resultJSON: String?

    public init(
        key: String, index: Int, state: ItemState, attempts: Int = 1, errorClass: String? = nil,
        message: String? = nil, resultJSON: String? = nil
    ) {
        self.key = key
        self.index = index
        self.state = state
        self.attempts = attempts
        self.errorClass = errorClass
        self.message = message
        self.resultJSON = resultJSON
    }
}

/// The writes a fenced transaction may make for its chunk.
public struct LeasedWrite {
    let db: any RunDatabase
    let lease: ChunkLease

    /// Writes (or overwrites) the rows of `outcomes`.
    public func write(_ outcomes: [ItemOutcomeRow]) throws {
        guard !outcomes.isEmpty else { return }
        let now = try db.currentTime()
        try db.executeEach(
            RunHandle.upsertSQL,
            outcomes.map { outcome in
                [
                    .integer(lease.runID), .text(lease.step), .text(outcome.key), .text(outcome.state.rawValue),
                    StoreValue(outcome.attempts), StoreValue(outcome.errorClass), StoreValue(outcome.message),
                    StoreValue(outcome.resultJSON), .null, .real(now), StoreValue(outcome.index),
                ]
            })
    }
}

extension RunStore {
    /// A handle on run `runID` for a process that joins its leased chunk steps beside the run's own
    /// process (`walletops worker`): no lock is taken, and the run must be running with `identity`'s
    /// work. The handle writes only through leases; with `retryFailed` (the run's own process is a retry)
    /// the failed items of the chunks it reopened are run again.
    ///
    /// - Throws: ``RunStoreError`` `.identityChanged` naming what differs (an input file that is not the
    ///   one the run was started with, as this process sees it), `.database` when the run is not running.
    public func join(runID: Int64, identity: RunIdentity, retryFailed: Bool = false) async throws -> RunHandle {
        guard let record = try await run(id: runID) else {
            throw RunStoreError(.database, runID: runID, "run \(runID) does not exist")
        }
        guard record.status == .running else {
            throw RunStoreError(.database, runID: runID, "run \(runID) is \(record.status.rawValue), not running")
        }
        let differences = identity.differences(from: record.identity)
        guard differences.isEmpty else {
            throw RunStoreError(
                .identityChanged(differences), runID: runID,
                "run \(runID) of '\(record.identity.playbookName)' is other work than this worker sees: "
                    + differences.joined(separator: ", "))
        }
        return RunHandle(store: self, runID: runID, isResumed: true, retryFailed: retryFailed)
    }
}

extension RunHandle {
    /// The outputs of the run's single-item steps that succeeded: what the items of later steps may be
    /// made of, for a process that joins the run after those steps ran elsewhere.
    func finishedStepOutputs() async throws -> StepOutputs {
        let runID = runID
        return try await store.queue.read { db in
            var outputs = StepOutputs()
            for row in try db.rows(
                "SELECT step, result FROM items WHERE run_id = ? AND item_key = ? AND state = 'succeeded'",
                [.integer(runID), .text(ItemSource.singleKey)])
            {
                outputs.byStep[row[0].string ?? ""] = JSONText.parseObject(row[1].string ?? "{}")
            }
            return outputs
        }
    }
}

/// A leased step's chunks at a moment (``RunStore/leaseSummary(runID:)``).
public struct LeaseSummary: Sendable, Equatable {
    public var step: String
    public var chunkSize: Int
    /// The step's items, once known.
    public var total: Int?
    public var done = 0
    /// Chunks held now, by owner (`host:pid`).
    public var held: [String: Int] = [:]
    /// Chunks whose holder's lease ran out: taken over by the next claim.
    public var lapsed = 0

    /// The step's chunks, once its total is known.
    public var chunks: Int? { total.map { ($0 + chunkSize - 1) / max(1, chunkSize) } }
}
