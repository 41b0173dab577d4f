import Foundation

extension RunStore {
    /// How ``openRun(_:mode:lockScope:)`` picks the run.
    public enum OpenMode: Sendable, Equatable {
        /// Resume the latest unfinished run of the same work (the playbook, its inputs' fingerprints and
        /// the vars that change the work: ``RunIdentity/key``), else start a new one; unfinished runs of
        /// other work are left as they are (the handle names them). With `acceptChanges`, resume the
        /// latest unfinished run of the playbook whatever its work, taking the new identity.
        case resumeOrStart(acceptChanges: Bool)
        /// Resume run `runID` (unfinished, of this playbook); a different work is refused unless
        /// `acceptChanges`.
        case resume(runID: Int64, acceptChanges: Bool)
        /// Start a new run; an unfinished one of the same work is marked abandoned.
        case fresh
        /// Run again the failed items of the latest run of the playbook (finished or not).
        case retryFailed
        /// Run again the failed items of run `runID` (finished or not, of this playbook).
        case retry(runID: Int64)
    }

    /// What must not run at once: runs of the same work (the default; two imports of different files
    /// go side by side), or every run of the playbook's name (a sweep that walks all the grants).
    public enum LockScope: Sendable, Equatable {
        case identity
        case name
    }

    /// Opens the run `identity` selects under `mode` and takes its lock, in one transaction that every
    /// other opening waits for.
    ///
    /// The lock is a `(pid, host, heartbeat)` triple on the run row. A holder on this host whose process
    /// no longer exists, or on another host whose heartbeat is older than ``staleLockAfter``, is taken
    /// over (an event records it); a live holder makes this throw. Under ``LockScope/name`` a live holder
    /// of any other unfinished run of the playbook does too.
    ///
    /// - Throws: ``RunStoreError`` with `.lockHeld` (CLI exit 75), `.identityChanged`, `.noRunToRetry`.
    public func openRun(
        _ identity: RunIdentity, mode: OpenMode = .resumeOrStart(acceptChanges: false),
        lockScope: LockScope = .identity
    ) async throws -> RunHandle {
        let opened = try await queue.write { db -> (Int64, Bool, Bool, [UnfinishedRun]) in
            try db.lockRunsForOpening()
            let now = Date().timeIntervalSince1970
            let name = identity.playbookName
            let unfinished = try Self.runs(
                db, where: "playbook_name = ? AND status IN ('running','interrupted','aborted') ORDER BY id DESC",
                [.text(name)])
            let existing: RunRecord?
            switch mode {
            case .resumeOrStart(let acceptChanges):
                existing =
                    acceptChanges
                    ? unfinished.first
                    : try Self.runs(
                        db,
                        where: "playbook_name = ? AND identity_key = ? "
                            + "AND status IN ('running','interrupted','aborted') ORDER BY id DESC LIMIT 1",
                        [.text(name), .text(identity.key)]
                    ).first.flatMap { identity.differences(from: $0.identity).isEmpty ? $0 : nil }
            case .fresh:
                existing = unfinished.first { identity.differences(from: $0.identity).isEmpty }
            case .resume(let runID, _), .retry(let runID):
                guard let found = try Self.runs(db, where: "id = ?", [.integer(runID)]).first,
                    found.identity.playbookName == name
                else {
                    throw RunStoreError(.noRunToRetry, runID: runID, "no run \(runID) of '\(name)'")
                }
                if case .resume = mode, !found.status.isUnfinished {
                    throw RunStoreError(
                        .noRunToRetry, runID: runID,
                        "run \(runID) of '\(name)' is \(found.status.rawValue): there is nothing to resume "
                            + "(walletops retry \(runID) runs its failed rows again)")
                }
                if found.status == .abandoned {
                    throw RunStoreError(.noRunToRetry, runID: runID, "run \(runID) of '\(name)' was abandoned")
                }
                existing = found
            case .retryFailed:
                existing = try Self.latestRun(db, playbookName: name, unfinishedOnly: false)
                if existing == nil {
                    throw RunStoreError(.noRunToRetry, runID: nil, "no earlier run of '\(name)' to retry")
                }
            }
            let others = unfinished.filter { $0.id != existing?.id }
            if lockScope == .name {
                for other in others { try self.checkLock(db, other, now: now) }
            }
            let left = others.map { UnfinishedRun(id: $0.id, differences: identity.differences(from: $0.identity)) }
            if let existing { try self.takeLock(db, existing, now: now) }
            if let existing, mode != .fresh {
                if try db.scalarInt(
                    "SELECT 1 FROM items WHERE run_id = ? AND item_index IS NULL LIMIT 1", [.integer(existing.id)])
                    != nil
                {
                    throw RunStoreError(
                        .olderCheckpointFormat, runID: existing.id,
                        "run \(existing.id) of '\(name)' was checkpointed by an older walletops "
                            + "(one row per item, no watermarks) and cannot be resumed or retried; start it fresh")
                }
                let differences = identity.differences(from: existing.identity)
                if !differences.isEmpty {
                    let accepted: Bool
                    switch mode {
                    case .resumeOrStart(let acceptChanges), .resume(_, let acceptChanges): accepted = acceptChanges
                    default: accepted = false
                    }
                    guard accepted else {
                        throw RunStoreError(
                            .identityChanged(differences), runID: existing.id,
                            "run \(existing.id) of '\(name)' cannot resume: "
                                + differences.joined(separator: ", ") + " (accept the changes or start fresh)")
                    }
                    try Self.event(
                        db, runID: existing.id, kind: "changes-accepted", message: differences.joined(separator: ", "))
                }
                // The vars that do not change the work take this invocation's values.
                try Self.writeIdentity(db, runID: existing.id, identity)
                try db.execute(
                    "UPDATE runs SET status = 'running', ended_at = NULL, message = NULL WHERE id = ?",
                    [.integer(existing.id)])
                let retrying: Bool
                switch mode {
                case .retryFailed, .retry: retrying = true
                default: retrying = false
                }
                try Self.event(
                    db, runID: existing.id, kind: retrying ? "retry-failed" : "resumed",
                    message: "pid \(self.pid) on \(self.host)")
                return (existing.id, true, retrying, left)
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
                  lock_pid, lock_host, lock_heartbeat, identity_key) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)
                RETURNING id
                """,
                [
                    .text(name), .text(identity.playbookHash),
                    .text(JSONText.object(identity.inputFingerprints)), .text(JSONText.object(identity.vars)),
                    .real(now), .integer(Int64(self.pid)), .text(self.host), .real(now), .text(identity.key),
                ])
            guard let id = inserted.first?.first?.int64 else {
                throw RunStoreError(.database, runID: nil, "the run store returned no id for the new run")
            }
            try Self.event(db, runID: id, kind: "started", message: "pid \(self.pid) on \(self.host)")
            return (id, false, false, left)
        }
        return RunHandle(
            store: self, runID: opened.0, isResumed: opened.1, retryFailed: opened.2, otherUnfinished: opened.3)
    }

    /// Throws `.lockHeld` when `run`'s lock has a live holder (see ``openRun(_:mode:lockScope:)``).
    private func checkLock(_ db: any RunDatabase, _ run: RunRecord, now: Double) throws {
        guard let holderPID = run.lockPID, let holderHost = run.lockHost else { return }
        let alive =
            holderHost == host
            ? Self.isProcessAlive(holderPID) : now - (run.lockHeartbeat ?? 0) < staleLockAfter.seconds
        if alive {
            throw RunStoreError(
                .lockHeld(pid: holderPID, host: holderHost), runID: run.id,
                "run \(run.id) of '\(run.identity.playbookName)' is locked by pid \(holderPID) on \(holderHost)")
        }
    }

    private func takeLock(_ db: any RunDatabase, _ run: RunRecord, now: Double) throws {
        try checkLock(db, run, now: now)
        if let holderPID = run.lockPID, let holderHost = run.lockHost {
            try Self.event(
                db, runID: run.id, kind: "lock-takeover",
                message: "from dead pid \(holderPID) on \(holderHost) to pid \(pid) on \(host)")
            // The dead holder's chunk leases (``leaseOwner``) lapse now: they are taken over (and their
            // items probed) at once rather than when their leases run out.
            try db.execute(
                "UPDATE chunk_leases SET lease_until = ? WHERE run_id = ? AND owner = ? AND state = 'running'",
                [try db.lapsedLeaseEnd(), .integer(run.id), .text("\(holderHost):\(holderPID)")])
        }
        try db.execute(
            "UPDATE runs SET lock_pid = ?, lock_host = ?, lock_heartbeat = ? WHERE id = ?",
            [.integer(Int64(pid)), .text(host), .real(now), .integer(run.id)])
    }

    private static func writeIdentity(_ db: any RunDatabase, runID: Int64, _ identity: RunIdentity) throws {
        try db.execute(
            "UPDATE runs SET playbook_hash = ?, input_fingerprints = ?, vars = ?, identity_key = ? WHERE id = ?",
            [
                .text(identity.playbookHash), .text(JSONText.object(identity.inputFingerprints)),
                .text(JSONText.object(identity.vars)), .text(identity.key), .integer(runID),
            ])
    }
}
