import Foundation
import SQLiteKit

/// The checkpoint database: runs, their steps, items and events, in one SQLite file (WAL,
/// `synchronous=NORMAL`: a committed checkpoint survives a process crash; see docs/engine.md).
///
/// All SQL runs on one ``DatabaseQueue`` (one writer connection, off the cooperative pool).
public final class RunStore: Sendable {
    let queue: DatabaseQueue
    /// The process id written into locks.
    public let pid: Int32
    /// The host name written into locks.
    public let host: String
    /// A lock held from another host is taken over when its heartbeat is older than this.
    public let staleLockAfter: Duration

    /// Opens (creating and migrating) the checkpoint database at `path`.
    ///
    /// `pid` and `host` default to this process; tests pass others to play a second process.
    public init(
        path: String, pid: Int32 = getpid(), host: String = RunStore.currentHost,
        staleLockAfter: Duration = .seconds(60)
    ) throws {
        self.queue = try DatabaseQueue(path: path, migrations: Self.migrations)
        // A 4 MiB page cache (default: 2 MiB): larger caches bought no speed in the engine bench at
        // 1,000,000 items but made the peak RSS grow with the run (16 MiB: 33 -> 64 MiB from 100k to 1M).
        try queue.sync { try $0.execute("PRAGMA cache_size=-4096") }
        self.pid = pid
        self.host = host
        self.staleLockAfter = staleLockAfter
    }

    /// The file path.
    public var path: String { queue.path }

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

    static let migrations: [SQLiteDatabase.Migration] = [
        .init(
            "checkpoints",
            sql: """
                CREATE TABLE runs(
                  id INTEGER PRIMARY KEY,
                  playbook_name TEXT NOT NULL,
                  playbook_hash TEXT NOT NULL,
                  input_fingerprints TEXT NOT NULL,
                  vars TEXT NOT NULL,
                  status TEXT NOT NULL,
                  started_at REAL NOT NULL,
                  ended_at REAL,
                  pending INTEGER NOT NULL DEFAULT 0,
                  started INTEGER NOT NULL DEFAULT 0,
                  succeeded INTEGER NOT NULL DEFAULT 0,
                  failed INTEGER NOT NULL DEFAULT 0,
                  rejected INTEGER NOT NULL DEFAULT 0,
                  skipped INTEGER NOT NULL DEFAULT 0,
                  lock_pid INTEGER,
                  lock_host TEXT,
                  lock_heartbeat REAL,
                  message TEXT);
                CREATE INDEX runs_by_playbook ON runs(playbook_name, id);
                CREATE TABLE steps(
                  run_id INTEGER NOT NULL REFERENCES runs(id),
                  step TEXT NOT NULL,
                  status TEXT NOT NULL,
                  message TEXT,
                  PRIMARY KEY(run_id, step)) WITHOUT ROWID;
                CREATE TABLE items(
                  run_id INTEGER NOT NULL,
                  step TEXT NOT NULL,
                  item_key TEXT NOT NULL,
                  state TEXT NOT NULL,
                  attempts INTEGER NOT NULL DEFAULT 0,
                  error_class TEXT,
                  message TEXT,
                  result TEXT,
                  idempotency_key TEXT,
                  updated_at REAL NOT NULL,
                  PRIMARY KEY(run_id, step, item_key)) WITHOUT ROWID;
                CREATE TABLE events(
                  id INTEGER PRIMARY KEY,
                  run_id INTEGER NOT NULL,
                  at REAL NOT NULL,
                  kind TEXT NOT NULL,
                  step TEXT,
                  message TEXT);
                CREATE INDEX events_by_run ON events(run_id, id);
                """),
        // Front-end facts about a run (the playbook path, the command that resumes it, step totals) and
        // the last time `walletops due` checked each playbook's schedule.
        .init(
            "run-attributes-and-schedule-checks",
            sql: """
                CREATE TABLE run_attributes(
                  run_id INTEGER NOT NULL,
                  name TEXT NOT NULL,
                  value TEXT NOT NULL,
                  PRIMARY KEY(run_id, name)) WITHOUT ROWID;
                CREATE TABLE schedule_checks(
                  playbook TEXT PRIMARY KEY,
                  checked_at REAL NOT NULL) WITHOUT ROWID;
                """),
        // Watermark checkpoints (docs/engine.md "Checkpoint layout"): per step, the count of leading items
        // (in input order) that are all settled, so items that succeed in order need no row. Rows remain
        // for the exceptions and carry the item's position. Rows of older versions have no position: such
        // runs are refused on resume (`RunStoreError.Code.olderCheckpointFormat`), their counts still show.
        .init(
            "step-watermarks",
            sql: """
                ALTER TABLE items ADD COLUMN item_index INTEGER;
                CREATE INDEX items_by_index ON items(run_id, step, item_index);
                CREATE INDEX items_unpositioned ON items(run_id) WHERE item_index IS NULL;
                CREATE TABLE step_marks(
                  run_id INTEGER NOT NULL,
                  step TEXT NOT NULL,
                  watermark INTEGER NOT NULL,
                  keys_hash INTEGER NOT NULL,
                  PRIMARY KEY(run_id, step)) WITHOUT ROWID;
                """),
        // In-item progress of round 1 (an item's own progress within it). Chunk steps made every row an
        // item, so nothing writes these columns any more; the migration stays for older run stores.
        .init(
            "step-item-progress",
            sql: """
                ALTER TABLE steps ADD COLUMN progress_done INTEGER;
                ALTER TABLE steps ADD COLUMN progress_total INTEGER;
                ALTER TABLE steps ADD COLUMN progress_unit TEXT;
                ALTER TABLE steps ADD COLUMN progress_items INTEGER;
                ALTER TABLE steps ADD COLUMN progress_rate REAL;
                ALTER TABLE steps ADD COLUMN progress_at REAL;
                """),
        // Output sinks of chunk steps (docs/engine.md "Output sinks"): per step and sink, the position its
        // rows reach (the step's watermark when committed) and the file's byte offset there.
        .init(
            "step-sinks",
            sql: """
                CREATE TABLE step_sinks(
                  run_id INTEGER NOT NULL,
                  step TEXT NOT NULL,
                  sink INTEGER NOT NULL,
                  position INTEGER NOT NULL,
                  byte_offset INTEGER NOT NULL,
                  PRIMARY KEY(run_id, step, sink)) WITHOUT ROWID;
                """),
    ]

    // MARK: Queries

    /// The latest unfinished run (running, interrupted or aborted) of `playbookName`, if any.
    public func findUnfinishedRun(playbookName: String) async throws -> RunRecord? {
        try await queue.read { db in try Self.latestRun(db, playbookName: playbookName, unfinishedOnly: true) }
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
            var values: [SQLiteValue] = [.integer(runID)]
            if let step {
                sql += " AND step = ? AND item_key > ?"
                values += [.text(step), .text(afterKey)]
            }
            sql += " ORDER BY step, item_key LIMIT ?"
            values.append(.integer(Int64(min(limit, Int(Int64.max)))))
            let statement = try db.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(values)
            var out: [ItemRecord] = []
            while try statement.step() {
                out.append(
                    ItemRecord(
                        step: statement.string(at: 0) ?? "", key: statement.string(at: 1) ?? "",
                        state: ItemState(rawValue: statement.string(at: 2) ?? "") ?? .pending,
                        attempts: Int(statement.int64(at: 3)), errorClass: statement.string(at: 4),
                        message: statement.string(at: 5), resultJSON: statement.string(at: 6),
                        idempotencyKey: statement.string(at: 7)))
            }
            return out
        }
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

    static func latestRun(_ db: SQLiteDatabase, playbookName: String, unfinishedOnly: Bool) throws -> RunRecord? {
        let filter =
            unfinishedOnly
            ? "playbook_name = ? AND status IN ('running','interrupted','aborted') ORDER BY id DESC LIMIT 1"
            : "playbook_name = ? AND status != 'abandoned' ORDER BY id DESC LIMIT 1"
        return try runs(db, where: filter, [.text(playbookName)]).first
    }

    static func runs(_ db: SQLiteDatabase, where filter: String, _ values: [SQLiteValue]) throws -> [RunRecord] {
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

    static func counts(_ db: SQLiteDatabase, runID: Int64, step: String?) throws -> [ItemState: Int] {
        var sql = "SELECT state, count(*) FROM items WHERE run_id = ?"
        var values: [SQLiteValue] = [.integer(runID)]
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
    static func implicitSucceeded(_ db: SQLiteDatabase, runID: Int64) throws -> [String: Int] {
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

    static func event(_ db: SQLiteDatabase, runID: Int64, kind: String, step: String? = nil, message: String? = nil)
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

extension SQLiteValue {
    var int64: Int64? { if case .integer(let v) = self { return v } else { return nil } }
    var int: Int { int64.map { Int($0) } ?? 0 }
    var double: Double? {
        switch self {
        case .real(let v): return v
        case .integer(let v): return Double(v)
        default: return nil
        }
    }
    var string: String? { if case .text(let v) = self { return v } else { return nil } }
}
