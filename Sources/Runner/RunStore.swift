import Foundation
import PostgresKit

/// The checkpoint database: runs, their steps, items and events. By default one SQLite file (WAL,
/// `synchronous=NORMAL`: a committed checkpoint survives a process crash); or a PostgreSQL database that
/// runs on several machines share. Both hold the same schema meaning (docs/engine.md).
///
/// All SQL runs on one connection on a serial queue, off the cooperative pool.
public final class RunStore: Sendable {
    let queue: any RunDatabaseQueue
    /// The process id written into locks.
    public let pid: Int32
    /// The host name written into locks.
    public let host: String
    /// A lock held from another host is taken over when its heartbeat is older than this.
    public let staleLockAfter: Duration

    /// Opens (creating and migrating) the SQLite checkpoint database at `path`.
    ///
    /// `pid` and `host` default to this process; tests pass others to play a second process.
    public convenience init(
        path: String, pid: Int32 = getpid(), host: String = RunStore.currentHost,
        staleLockAfter: Duration = .seconds(60)
    ) throws {
        try self.init(
            queue: SQLiteRunDatabaseQueue(path: path), pid: pid, host: host, staleLockAfter: staleLockAfter)
    }

    /// The SQLite store's page cache unless a caller switches it off (docs/engine.md "Performance").
    public static let sqlitePageCacheKibibytes = SQLiteRunDatabaseQueue.pageCacheKibibytes

    /// Opens (creating and migrating) the store `location` names: a PostgreSQL URL (`postgresql://` or
    /// `postgres://`) or an SQLite file path, the file's page cache `sqlitePageCacheKibibytes` (nil:
    /// SQLite's default).
    ///
    /// - Throws: ``RunStoreError`` or the database's error, whose message never shows a URL's password.
    public convenience init(
        location: String, pid: Int32 = getpid(), host: String = RunStore.currentHost,
        staleLockAfter: Duration = .seconds(60), sqlitePageCacheKibibytes: Int? = RunStore.sqlitePageCacheKibibytes
    ) throws {
        let queue: any RunDatabaseQueue =
            Self.isPostgresURL(location)
            ? try PostgresRunDatabaseQueue(url: location, applicationName: "walletops \(host):\(pid)")
            : try SQLiteRunDatabaseQueue(path: location, pageCacheKibibytes: sqlitePageCacheKibibytes)
        try self.init(queue: queue, pid: pid, host: host, staleLockAfter: staleLockAfter)
    }

    init(queue: any RunDatabaseQueue, pid: Int32, host: String, staleLockAfter: Duration) throws {
        self.queue = queue
        self.pid = pid
        self.host = host
        self.staleLockAfter = staleLockAfter
    }

    /// Whether `location` is a PostgreSQL URL rather than a file path.
    public static func isPostgresURL(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// Where the store is, for messages: its file path, or its URL without the password.
    public var location: String { queue.location }

    /// `location` as messages may show it: a URL's password replaced by `***`.
    public static func displayLocation(_ location: String) -> String {
        isPostgresURL(location) ? PostgresConnection.withoutPassword(location) : location
    }

    /// This machine's host name.
    public static var currentHost: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether a process with `pid` exists on this host.
    public static func isProcessAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    // MARK: Queries

    /// The latest unfinished run (running, interrupted or aborted) of `playbookName`, if any.
    public func findUnfinishedRun(playbookName: String) async throws -> RunRecord? {
        try await queue.read { db in try Self.latestRun(db, playbookName: playbookName, unfinishedOnly: true) }
    }

    /// The latest unfinished run of the same work as `identity` (``RunIdentity/key``), if any.
    public func findUnfinishedRun(identity: RunIdentity) async throws -> RunRecord? {
        try await queue.read { db in
            try Self.runs(
                db,
                where: "playbook_name = ? AND identity_key = ? AND status IN ('running','interrupted','aborted') "
                    + "ORDER BY id DESC LIMIT 1", [.text(identity.playbookName), .text(identity.key)]
            ).first
        }
    }

    /// The run with `id`.
    public func run(id: Int64) async throws -> RunRecord? {
        try await queue.read { db in
            try Self.runs(db, where: "id = ?", [.integer(id)]).first
        }
    }

    /// Every run of `playbookName`, oldest first.
    public func runs(playbookName: String) async throws -> [RunRecord] {
        try await queue.read { db in
            try Self.runs(db, where: "playbook_name = ? ORDER BY id", [.text(playbookName)])
        }
    }

    /// The item rows of a run (optionally one step), ordered by step and key. For reports and tests: the
    /// result is in memory, so page with `limit`/`after` for large runs. Items that succeeded in order
    /// without outputs (and without side effects) have no row: the step's watermark covers them.
    public func items(runID: Int64, step: String? = nil, limit: Int = Int.max, afterKey: String = "") async throws
        -> [ItemRecord]
    {
        try await queue.read { db in
            var sql =
                "SELECT step, item_key, state, attempts, error_class, message, result, idempotency_key FROM items WHERE run_id = ?"
            var values: [StoreValue] = [.integer(runID)]
            if let step {
                sql += " AND step = ? AND item_key > ?"
                values += [.text(step), .text(afterKey)]
            }
            sql += " ORDER BY step, item_key LIMIT ?"
            values.append(.integer(Int64(min(limit, Int(Int64.max)))))
            return try db.rows(sql, values).map(Self.itemRecord)
        }
    }

    /// An item row of `SELECT step, item_key, state, attempts, error_class, message, result, idempotency_key`.
    static func itemRecord(_ row: [StoreValue]) -> ItemRecord {
        ItemRecord(
            step: row[0].string ?? "", key: row[1].string ?? "",
            state: ItemState(rawValue: row[2].string ?? "") ?? .pending, attempts: row[3].int,
            errorClass: row[4].string, message: row[5].string, resultJSON: row[6].string,
            idempotencyKey: row[7].string)
    }

    /// Item counts of a run by state (optionally one step).
    public func itemCounts(runID: Int64, step: String? = nil) async throws -> [ItemState: Int] {
        try await queue.read { db in try Self.counts(db, runID: runID, step: step) }
    }

    /// The events of a run, in order.
    public func events(runID: Int64) async throws -> [RunEvent] {
        try await queue.read { db in
            try db.rows("SELECT at, kind, step, message FROM events WHERE run_id = ? ORDER BY id", [.integer(runID)])
                .map { row in
                    RunEvent(
                        at: row[0].double ?? 0, kind: row[1].string ?? "", step: row[2].string, message: row[3].string)
                }
        }
    }

    /// A step's recorded status ("running", "succeeded", "failed", "skipped", "interrupted").
    public func stepStatus(runID: Int64, step: String) async throws -> String? {
        try await queue.read { db in
            try db.scalarString(
                "SELECT status FROM steps WHERE run_id = ? AND step = ?", [.integer(runID), .text(step)])
        }
    }

    // MARK: Row helpers (on the queue)

    static func latestRun(_ db: any RunDatabase, playbookName: String, unfinishedOnly: Bool) throws -> RunRecord? {
        let filter =
            unfinishedOnly
            ? "playbook_name = ? AND status IN ('running','interrupted','aborted') ORDER BY id DESC LIMIT 1"
            : "playbook_name = ? AND status != 'abandoned' ORDER BY id DESC LIMIT 1"
        return try runs(db, where: filter, [.text(playbookName)]).first
    }

    static func runs(_ db: any RunDatabase, where filter: String, _ values: [StoreValue]) throws -> [RunRecord] {
        let sql = """
            SELECT id, playbook_name, playbook_hash, input_fingerprints, vars, status, started_at, ended_at,
              pending, started, succeeded, failed, rejected, skipped, lock_pid, lock_host, lock_heartbeat, message
            FROM runs WHERE \(filter)
            """
        return try db.rows(sql, values).map { row in
            let counts: [ItemState: Int] = [
                .pending: row[8].int, .started: row[9].int, .succeeded: row[10].int, .failed: row[11].int,
                .rejected: row[12].int, .skipped: row[13].int,
            ]
            return RunRecord(
                id: row[0].int64 ?? 0,
                identity: RunIdentity(
                    playbookName: row[1].string ?? "", playbookHash: row[2].string ?? "",
                    inputFingerprints: JSONText.parseObject(row[3].string ?? "{}"),
                    vars: JSONText.parseObject(row[4].string ?? "{}")),
                status: RunStatus(rawValue: row[5].string ?? "") ?? .running, startedAt: row[6].double ?? 0,
                endedAt: row[7].double, counts: counts, lockPID: row[14].int64.map { Int32(truncatingIfNeeded: $0) },
                lockHost: row[15].string, lockHeartbeat: row[16].double, message: row[17].string)
        }
    }

    static func counts(_ db: any RunDatabase, runID: Int64, step: String?) throws -> [ItemState: Int] {
        var sql = "SELECT state, count(*) FROM items WHERE run_id = ?"
        var values: [StoreValue] = [.integer(runID)]
        if let step {
            sql += " AND step = ?"
            values.append(.text(step))
        }
        sql += " GROUP BY state"
        var out: [ItemState: Int] = [:]
        for row in try db.rows(sql, values) {
            if let state = ItemState(rawValue: row[0].string ?? "") { out[state] = row[1].int }
        }
        for (name, implicit) in try implicitSucceeded(db, runID: runID) where step == nil || name == step {
            out[.succeeded, default: 0] += implicit
        }
        return out.filter { $0.value > 0 }
    }

    /// Per step, the items below its watermark that have no row: they succeeded (docs/engine.md).
    static func implicitSucceeded(_ db: any RunDatabase, runID: Int64) throws -> [String: Int] {
        var out: [String: Int] = [:]
        let rows = try db.rows(
            """
            SELECT m.step, m.watermark - (SELECT count(*) FROM items i
              WHERE i.run_id = m.run_id AND i.step = m.step AND i.item_index < m.watermark)
            FROM step_marks m WHERE m.run_id = ?
            """, [.integer(runID)])
        for row in rows where row[1].int > 0 { out[row[0].string ?? "", default: 0] += row[1].int }
        return out
    }

    static func event(_ db: any RunDatabase, runID: Int64, kind: String, step: String? = nil, message: String? = nil)
        throws
    {
        try db.execute(
            "INSERT INTO events(run_id, at, kind, step, message) VALUES (?, ?, ?, ?, ?)",
            [
                .integer(runID), .real(Date().timeIntervalSince1970), .text(kind), step.map { .text($0) } ?? .null,
                message.map { .text($0) } ?? .null,
            ])
    }
}
