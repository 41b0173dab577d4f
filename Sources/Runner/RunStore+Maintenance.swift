import Foundation

/// Queries and housekeeping for the command line: listing runs, failures, per-step counts, run
/// attributes, schedule checks, and pruning old runs.
extension RunStore {
    /// Every run, newest first (at most `limit`).
    public func allRuns(limit: Int = 1000) async throws -> [RunRecord] {
        try await queue.read { db in
            try Self.runs(db, where: "TRUE ORDER BY id DESC LIMIT ?", [.integer(Int64(limit))])
        }
    }

    /// Items of a run in the given states, in step and key order, at most `limit`; with the number of
    /// such items in total (so a report can say how many it left out).
    public func items(runID: Int64, states: Set<ItemState>, limit: Int) async throws -> (
        items: [ItemRecord], total: Int
    ) {
        let names = states.map(\.rawValue).sorted()
        return try await queue.read { db in
            let marks = names.map { _ in "?" }.joined(separator: ",")
            let values: [StoreValue] = [.integer(runID)] + names.map { .text($0) }
            let total =
                try db.scalarInt(
                    "SELECT count(*) FROM items WHERE run_id = ? AND state IN (\(marks))", values) ?? 0
            let rows = try db.rows(
                """
                SELECT step, item_key, state, attempts, error_class, message, result, idempotency_key FROM items
                WHERE run_id = ? AND state IN (\(marks)) ORDER BY step, item_key LIMIT ?
                """, values + [.integer(Int64(limit))])
            return (rows.map(Self.itemRecord), Int(total))
        }
    }

    /// Item counts per step and state, and each step's recorded status.
    public func stepCounts(runID: Int64) async throws -> [String: (status: String?, counts: [ItemState: Int])] {
        try await queue.read { db in
            var out: [String: (status: String?, counts: [ItemState: Int])] = [:]
            for row in try db.rows("SELECT step, status FROM steps WHERE run_id = ?", [.integer(runID)]) {
                out[row[0].string ?? "", default: (nil, [:])].status = row[1].string
            }
            for row in try db.rows(
                "SELECT step, state, count(*) FROM items WHERE run_id = ? GROUP BY step, state", [.integer(runID)])
            {
                if let state = ItemState(rawValue: row[1].string ?? "") {
                    out[row[0].string ?? "", default: (nil, [:])].counts[state] = row[2].int
                }
            }
            for (step, implicit) in try Self.implicitSucceeded(db, runID: runID) {
                out[step, default: (nil, [:])].counts[.succeeded, default: 0] += implicit
            }
            return out
        }
    }

    /// Sets named attributes of a run (the front end's own facts about it).
    public func setAttributes(runID: Int64, _ attributes: [String: String]) async throws {
        try await queue.write { db in
            for (name, value) in attributes {
                try db.execute(
                    "INSERT INTO run_attributes(run_id, name, value) VALUES (?, ?, ?) "
                        + "ON CONFLICT(run_id, name) DO UPDATE SET value = excluded.value",
                    [.integer(runID), .text(name), .text(value)])
            }
        }
    }

    /// The attributes of a run.
    public func attributes(runID: Int64) async throws -> [String: String] {
        try await queue.read { db in
            var out: [String: String] = [:]
            for row in try db.rows("SELECT name, value FROM run_attributes WHERE run_id = ?", [.integer(runID)]) {
                out[row[0].string ?? ""] = row[1].string ?? ""
            }
            return out
        }
    }

    /// Checks `playbook`'s schedule as of `time` (Unix seconds) and records the check, in one transaction
    /// that every other check of the store waits for: of several processes checking the same schedule at
    /// once (two cron hosts on one shared store), only the first to commit sees a fire time it has not
    /// seen. `isDue(last, time)` decides from the last recorded check (`time - 60` the first time); the
    /// recorded time never moves back, so a host whose clock is behind finds nothing due.
    public func checkSchedule(
        playbook: String, at time: Double, isDue: @escaping @Sendable (_ last: Double, _ now: Double) -> Bool
    ) async throws -> Bool {
        try await queue.write { db in
            try db.lockRunsForOpening()
            let last = try db.rows("SELECT checked_at FROM schedule_checks WHERE playbook = ?", [.text(playbook)])
                .first?[0].double
            guard last.map({ time > $0 }) ?? true else { return false }
            try db.execute(
                "INSERT INTO schedule_checks(playbook, checked_at) VALUES (?, ?) "
                    + "ON CONFLICT(playbook) DO UPDATE SET checked_at = excluded.checked_at",
                [.text(playbook), .real(time)])
            return isDue(last ?? time - 60, time)
        }
    }

    /// The store's clock (Unix seconds): PostgreSQL's when the store is shared, so that hosts whose
    /// clocks differ agree on what time it is; this machine's for SQLite.
    public func currentTime() async throws -> Double {
        try await queue.read { db in try db.currentTime() }
    }

    /// Deletes finished runs (completed or abandoned) that ended before `cutoff` (Unix seconds), with
    /// their steps, items, watermarks, events and attributes, in one transaction. Returns the deleted run ids.
    public func pruneRuns(endedBefore cutoff: Double) async throws -> [Int64] {
        try await queue.write { db in
            let ids = try db.rows(
                "SELECT id FROM runs WHERE status IN ('completed','abandoned') AND ended_at IS NOT NULL AND ended_at < ?",
                [.real(cutoff)]
            ).compactMap { $0[0].int64 }
            for id in ids {
                for table in ["items", "step_marks", "step_sinks", "steps", "events", "run_attributes"] {
                    try db.execute("DELETE FROM \(table) WHERE run_id = ?", [.integer(id)])
                }
                try db.execute("DELETE FROM runs WHERE id = ?", [.integer(id)])
            }
            return ids
        }
    }
}
