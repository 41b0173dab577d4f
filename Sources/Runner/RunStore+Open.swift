import Foundation

extension RunStore {
    /// How ``openRun(_:mode:)`` picks the run.
    public enum OpenMode: Sendable, Equatable {
        /// Resume the latest unfinished run of the playbook, else start a new one. A changed playbook,
        /// input or variable refuses the resume unless `acceptChanges`.
        case resumeOrStart(acceptChanges: Bool)
        /// Start a new run; an unfinished one is marked abandoned.
        case fresh
        /// Run again the failed items of the latest run of the playbook (finished or not).
        case retryFailed
    }

    /// Opens the run `identity` selects under `mode` and takes its lock, in one immediate transaction.
    ///
    /// The lock is a `(pid, host, heartbeat)` triple on the run row. A holder on this host whose process
    /// no longer exists, or on another host whose heartbeat is older than ``staleLockAfter``, is taken
    /// over (an event records it); a live holder makes this throw.
    ///
    /// - Throws: ``RunStoreError`` with `.lockHeld` (CLI exit 75), `.identityChanged`, `.noRunToRetry`.
    public func openRun(_ identity: RunIdentity, mode: OpenMode = .resumeOrStart(acceptChanges: false)) async throws
        -> RunHandle
    {
        let opened = try await queue.write { db -> (Int64, Bool, Bool) in
            try db.lockRunsForOpening()
            let now = Date().timeIntervalSince1970
            let existing: RunRecord?
            switch mode {
            case .resumeOrStart, .fresh:
                existing = try Self.latestRun(db, playbookName: identity.playbookName, unfinishedOnly: true)
            case .retryFailed:
                existing = try Self.latestRun(db, playbookName: identity.playbookName, unfinishedOnly: false)
                if existing == nil {
                    throw RunStoreError(
                        .noRunToRetry, runID: nil, "no earlier run of '\(identity.playbookName)' to retry")
                }
            }
            if let existing { try self.takeLock(db, existing, now: now) }
            if let existing, mode != .fresh {
                if try db.scalarInt(
                    "SELECT 1 FROM items WHERE run_id = ? AND item_index IS NULL LIMIT 1", [.integer(existing.id)])
                    != nil
                {
                    throw RunStoreError(
                        .olderCheckpointFormat, runID: existing.id,
                        "run \(existing.id) of '\(identity.playbookName)' was checkpointed by an older walletops "
                            + "(one row per item, no watermarks) and cannot be resumed or retried; start it fresh")
                }
                let differences = identity.differences(from: existing.identity)
                if !differences.isEmpty {
                    guard case .resumeOrStart(acceptChanges: true) = mode else {
                        throw RunStoreError(
                            .identityChanged(differences), runID: existing.id,
                            "run \(existing.id) of '\(identity.playbookName)' cannot resume: "
                                + differences.joined(separator: ", ") + " (accept the changes or start fresh)")
                    }
                    try Self.writeIdentity(db, runID: existing.id, identity)
                    try Self.event(
                        db, runID: existing.id, kind: "changes-accepted", message: differences.joined(separator: ", "))
                }
                try db.execute(
                    "UPDATE runs SET status = 'running', ended_at = NULL, message = NULL WHERE id = ?",
                    [.integer(existing.id)])
                let kind = mode == .retryFailed ? "retry-failed" : "resumed"
                try Self.event(db, runID: existing.id, kind: kind, message: "pid \(self.pid) on \(self.host)")
                return (existing.id, true, mode == .retryFailed)
            }
            if let existing {
                try db.execute(
                    "UPDATE runs SET status = 'abandoned', ended_at = ?, lock_pid = NULL, lock_host = NULL WHERE id = ?",
                    [.real(now), .integer(existing.id)])
                try Self.event(db, runID: existing.id, kind: "abandoned", message: "replaced by a fresh start")
            }
            let inserted = try db.rows(
                """
                INSERT INTO runs(playbook_name, playbook_hash, input_fingerprints, vars, status, started_at,
                  lock_pid, lock_host, lock_heartbeat) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?) RETURNING id
                """,
                [
                    .text(identity.playbookName), .text(identity.playbookHash),
                    .text(JSONText.object(identity.inputFingerprints)), .text(JSONText.object(identity.vars)),
                    .real(now), .integer(Int64(self.pid)), .text(self.host), .real(now),
                ])
            guard let id = inserted.first?.first?.int64 else {
                throw RunStoreError(.database, runID: nil, "the run store returned no id for the new run")
            }
            try Self.event(db, runID: id, kind: "started", message: "pid \(self.pid) on \(self.host)")
            return (id, false, false)
        }
        return RunHandle(store: self, runID: opened.0, isResumed: opened.1, retryFailed: opened.2)
    }

    private func takeLock(_ db: any RunDatabase, _ run: RunRecord, now: Double) throws {
        if let holderPID = run.lockPID, let holderHost = run.lockHost {
            let alive: Bool
            if holderHost == host {
                alive = Self.isProcessAlive(holderPID)
            } else {
                alive = now - (run.lockHeartbeat ?? 0) < staleLockAfter.seconds
            }
            if alive {
                throw RunStoreError(
                    .lockHeld(pid: holderPID, host: holderHost), runID: run.id,
                    "run \(run.id) of '\(run.identity.playbookName)' is locked by pid \(holderPID) on \(holderHost)")
            }
            try Self.event(
                db, runID: run.id, kind: "lock-takeover",
                message: "from dead pid \(holderPID) on \(holderHost) to pid \(pid) on \(host)")
        }
        try db.execute(
            "UPDATE runs SET lock_pid = ?, lock_host = ?, lock_heartbeat = ? WHERE id = ?",
            [.integer(Int64(pid)), .text(host), .real(now), .integer(run.id)])
    }

    private static func writeIdentity(_ db: any RunDatabase, runID: Int64, _ identity: RunIdentity) throws {
        try db.execute(
            "UPDATE runs SET playbook_hash = ?, input_fingerprints = ?, vars = ? WHERE id = ?",
            [
                .text(identity.playbookHash), .text(JSONText.object(identity.inputFingerprints)),
                .text(JSONText.object(identity.vars)), .integer(runID),
            ])
    }
}
