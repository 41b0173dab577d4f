import Foundation
import OMSProtocol
import SQLiteKit
import Synchronization

/// The core's database: one writer connection on its own serial queue (SQLite calls never run on the
/// cooperative pool), WAL mode, `synchronous=FULL` so an acknowledged change survives power loss, and
/// one reader connection on another queue. WAL lets the reader see the last commit while the writer
/// runs: a bulk insert holding the writer for milliseconds does not hold up the reads of other
/// requests (their credential, recipient key and reference checks), so their CPU work starts at once.
///
/// Writes are group-committed: each runs in its own savepoint, and the writes waiting when the queue
/// frees up share one transaction and so one fsync. Every protected request writes (its nonce), and
/// an fsync costs milliseconds, so without this the core answered no faster than the disk syncs. A write
/// is answered only after the commit that holds it; a failed write rolls back its savepoint alone.
public final class CoreStore: Sendable {
    let queue: DatabaseQueue
    /// Reads only (`query_only`): committed data, never the writer's open transaction.
    private let reader: DatabaseQueue
    /// Runs the group commits, blocking on `queue` off the cooperative pool (``startFlusher(_:)``).
    private let flusher: Flusher
    /// What this store was opened with.
    let tuning: Tuning
    /// Copies the WAL back off the writer's thread (``Tuning/checkpointsInBackground``); nil when the writer
    /// does it alone.
    let checkpointer: WALCheckpointer?
    private let pending = Mutex(PendingWrites())

    private struct PendingWrites {
        var writes: [PendingWrite] = []
        var flushing = false
        /// Committed weight since the recent address keys were last counted.
        var weightSinceTierCheck = 0
    }
    private let tiers: AddressKeyTiers

    /// A write waiting for its batch.
    private struct PendingWrite: Sendable {
        /// Rows it changes, about: a group takes writes up to ``groupWeightLimit``.
        var weight: Int
        /// Runs the body in the batch's transaction; returns how to answer once the batch committed
        /// (nil) or failed to (the error).
        var run: @Sendable (SQLiteDatabase) -> @Sendable ((any Error)?) -> Void
        /// Answers without running, when the batch could not begin.
        var fail: @Sendable (any Error) -> Void
    }

    /// How the group commits are started: one signal per run of ``flush()`` to the store's own thread, or
    /// one block per run on a serial dispatch queue (``Tuning/flushesOnOwnThread``).
    private enum Flusher: Sendable {
        case thread(DispatchSemaphore)
        case queue(DispatchQueue)
    }

    /// The flusher thread's name: at most 15 bytes, Linux's limit (a longer one is not set at all).
    static let flusherThreadName = "walletops.flush"

    /// Opens (creating and migrating) the store at `url`, with every tuning mechanism of `tuning` that is on.
    public convenience init(url: URL, tuning: Tuning = .default) throws {
        try self.init(url: url, addressKeyTiers: AddressKeyTiers(), tuning: tuning)
    }

    init(url: URL, addressKeyTiers: AddressKeyTiers, tuning: Tuning = .default) throws {
        tiers = addressKeyTiers
        self.tuning = tuning
        var configuration = SQLiteDatabase.Configuration.default
        configuration.synchronous = .full
        // Without spilling, a transaction's dirty pages stay in memory until its commit (bounded by the group
        // commit), so a batch never writes the same page many times; clean pages are capped by the page cache
        // (``Tuning/pageCacheKibibytes``).
        configuration.cacheKibibytes = tuning.pageCacheKibibytes
        configuration.cacheSpill = false
        if !tuning.checkpointsInBackground { configuration.walAutocheckpointPages = Self.walRestartFrames }
        // Every request runs in a savepoint, whose journal keeps the first image of each page it changes:
        // in memory (a batch's pages at most) rather than a write to a file under /var/tmp per page.
        configuration.temporaryStorageInMemory = true
        queue = try DatabaseQueue(path: url.path, configuration: configuration, migrations: CoreSchema.migrations)
        let checkpointer =
            tuning.checkpointsInBackground
            ? try WALCheckpointer(path: url.path, configuration: Self.checkpointerConfiguration) : nil
        self.checkpointer = checkpointer
        queue.sync { db in
            db.attach(SettledAddressKeyFilter(buildAfter: addressKeyTiers.filterBuildAfter))
            db.attach(RecentAddressKeys(capacity: addressKeyTiers.indexCapacity))
            if let checkpointer { Self.observeCommits(of: db, checkpointer) }
        }
        // The log a killed process left is copied back while this one starts its work.
        checkpointer?.request()
        // The writer's index of the recent address keys is read now, beside the caller's start, rather than
        // in the first import's transaction, which every batch in flight waits on (later reads add only the
        // rows written since).
        queue.enqueue { db in _ = try? db.transaction(.deferred) { try db.recentAddressKeys.catchUp(db) } }
        // Opened after the writer has migrated the schema; SQLite's default 2 MiB cache.
        var readerConfiguration = SQLiteDatabase.Configuration.default
        readerConfiguration.flags = [.readWrite]
        readerConfiguration.synchronous = .full
        reader = try DatabaseQueue(
            path: url.path, configuration: readerConfiguration, migrations: CoreSchema.migrations)
        try reader.sync { db in try db.execute("PRAGMA query_only=ON") }
        flusher =
            tuning.flushesOnOwnThread
            ? .thread(DispatchSemaphore(value: 0)) : .queue(DispatchQueue(label: Self.flusherThreadName + ".queue"))
        startFlusher(flusher)
    }

    deinit {
        // The flusher thread finds the store gone and ends.
        if case .thread(let signal) = flusher { signal.signal() }
        // A copy under way ends before the connections close; the last to close copies what is left.
        checkpointer?.drain()
    }

    /// Copies the whole log back to the database file and empties it, unless another connection is using it
    /// then: for a process whose requests are over, so that its close, which otherwise copies what is left
    /// and deletes a log of up to ``walRestartFrames`` pages, is quick; the store stays usable.
    public func truncateLog() async {
        if let checkpointer {
            _ = await checkpointer.truncate()
        } else {
            _ = try? await queue.read { db in try db.checkpointTruncating() }
        }
    }

    /// WAL frames (pages) between two requests to the background copy (``Tuning/checkpointsInBackground``):
    /// what is left for the close at most, about. A larger interval copies a page rewritten by successive
    /// group commits back once rather than per commit.
    static let backgroundCheckpointFrames = 2048

    /// WAL frames at which the writer copies the log back itself (PASSIVE), so that its next transaction
    /// writes the log from its start: the log's size, about. Without the background copy, SQLite's
    /// automatic checkpoint at this interval (`wal_autocheckpoint`).
    static let walRestartFrames = 8192

    /// The background copy's connection: the writer's durability (a FULL sync of both files per copy), no
    /// migrations (the writer ran them), SQLite's default cache (a copy reads frames from the log, not pages
    /// through the cache).
    private static var checkpointerConfiguration: SQLiteDatabase.Configuration {
        var configuration = SQLiteDatabase.Configuration.default
        configuration.flags = [.readWrite]
        configuration.synchronous = .full
        return configuration
    }

    /// Asks `checkpointer` for a copy each ``backgroundCheckpointFrames`` the writer `db` commits, and has the
    /// writer copy what is left and restart the log at ``walRestartFrames``.
    private static func observeCommits(of db: SQLiteDatabase, _ checkpointer: WALCheckpointer) {
        var nextRequest = backgroundCheckpointFrames
        db.observeWALCommits { frames in
            // The log restarted: count from its start again.
            if frames < nextRequest - backgroundCheckpointFrames { nextRequest = backgroundCheckpointFrames }
            if frames >= nextRequest {
                nextRequest = frames + backgroundCheckpointFrames
                checkpointer.request()
            }
            return frames >= walRestartFrames
        }
    }

    /// Starts the long-lived flusher thread when the group commits run on one (``Tuning/flushesOnOwnThread``).
    private func startFlusher(_ flusher: Flusher) {
        guard case .thread(let signal) = flusher else { return }
        let thread = Thread { [weak self] in
            var named = false
            while true {
                signal.wait()
                // Named from inside once woken, when `start()` has surely returned: on Linux a name given
                // before then never reaches the system thread.
                if !named {
                    Thread.current.name = Self.flusherThreadName
                    named = true
                }
                guard let store = self else { return }
                store.flush()
            }
        }
        thread.start()
    }

    /// Runs ``flush()`` on the flusher.
    private func startFlush() {
        switch flusher {
        case .thread(let signal): signal.signal()
        case .queue(let queue): queue.async { self.flush() }
        }
    }

    /// Rows one group commit may change, about. With `cache_spill` off a transaction's dirty pages stay
    /// in memory until it commits (about 1.5 pages of 4 KiB per wallet row: the random address index
    /// takes one): bulk writes queued by many batches in flight would otherwise share one group and
    /// grow memory with the number in flight. A write heavier than the limit still goes, alone.
    static let groupWeightLimit = 2000

    /// A write this light (a nonce, a recipient key, a revocation) that was queued while a group ran joins
    /// that group's transaction before its COMMIT, up to ``lateJoinLimit`` of them: it shares the fsync
    /// instead of waiting for the group's and then paying its own: the small writes queued behind a batch
    /// import's bulk insert otherwise cost a commit each (docs/jobs.md, session 7, has the fsyncs saved).
    static let lateJoinWeight = 8
    static let lateJoinLimit = 256

    /// Transactions committed by this store's writer, for tests.
    var commits: Int { committed.load(ordering: .relaxed) }
    private let committed = Atomic<Int>(0)
    /// Times this store gave freed heap memory back after a bulk commit, for tests.
    var heapTrims: Int { trimmed.load(ordering: .relaxed) }
    private let trimmed = Atomic<Int>(0)

    /// Runs `body` atomically: every change a request makes commits together or not at all, and is
    /// durable when this returns. `weight`: the rows it changes, about (bulk writes; default 1).
    func write<T: Sendable>(weight: Int = 1, _ body: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws
        -> T
    {
        try await submit(weight: weight, body).value()
    }

    /// Queues `body` as ``write(_:)`` does, now, and returns at once: its place among the writes is
    /// taken at the call, its result awaited later. A request that must take its nonce in arrival order
    /// but has CPU work to do before it needs the answer submits the nonce write and works meanwhile.
    func submit<T: Sendable>(weight: Int = 1, _ body: @escaping @Sendable (SQLiteDatabase) throws -> T)
        -> WriteTicket<T>
    {
        let ticket = WriteTicket<T>()
        let write = PendingWrite(
            weight: max(1, weight),
            run: { db in
                let result = Result { () throws -> T in
                    try db.execute("SAVEPOINT request")
                    do {
                        let value = try body(db)
                        try db.execute("RELEASE request")
                        return value
                    } catch {
                        if db.isInTransaction {
                            try? db.execute("ROLLBACK TO request")
                            try? db.execute("RELEASE request")
                        }
                        throw error
                    }
                }
                return { commitError in
                    if let commitError, case .success = result {
                        ticket.resolve(.failure(commitError))
                    } else {
                        ticket.resolve(result)
                    }
                }
            },
            fail: { error in ticket.resolve(.failure(error)) })
        let start = pending.withLock { state -> Bool in
            state.writes.append(write)
            defer { state.flushing = true }
            return !state.flushing
        }
        if start { startFlush() }
        return ticket
    }

    /// Commits batches until no write is waiting.
    private func flush() {
        while true {
            // The writes waiting, oldest first, up to the group's weight (at least one).
            let writes = pending.withLock { state -> [PendingWrite] in
                if state.writes.isEmpty { state.flushing = false }
                var taken = 0
                var weight = 0
                while taken < state.writes.count
                    && (taken == 0 || weight + state.writes[taken].weight <= Self.groupWeightLimit)
                {
                    weight += state.writes[taken].weight
                    taken += 1
                }
                defer { state.writes.removeFirst(taken) }
                return Array(state.writes.prefix(taken))
            }
            if writes.isEmpty { return }
            let (answers, weight, didCommit) = queue.sync { db in
                Self.commit(writes, db, late: { [self] in lateLightWrites() })
            }
            if didCommit { committed.add(1, ordering: .relaxed) }
            // A bulk write freed its journal: memory stays flat as imports go on (SQLiteDatabase.returnFreedMemory).
            if weight >= Self.groupWeightLimit / 2 && tuning.returnsFreedMemoryAfterBulkCommits {
                SQLiteDatabase.returnFreedMemory()
                trimmed.add(1, ordering: .relaxed)
            }
            for answer in answers { answer() }
            let due = pending.withLock { state -> Bool in
                state.weightSinceTierCheck += weight
                guard state.weightSinceTierCheck >= tiers.checkEvery else { return false }
                state.weightSinceTierCheck = 0
                return true
            }
            if due { settleAddressKeysIfDue() }
        }
    }

    /// Moves imported address keys from the recent tier to the settled one, a chunk per transaction,
    /// while the recent tier holds ``AddressKeyTiers/recentLimit`` or more (migrations 6 and 8), at most
    /// ``AddressKeyTiers/chunksPerLook`` chunks a look. Runs on the flusher between group commits; a
    /// failure leaves the keys where they are (both tiers are searched), to be moved at a later look.
    private func settleAddressKeysIfDue() {
        let tiers = tiers
        do {
            for _ in 0..<tiers.chunksPerLook {
                let moved = try queue.sync { db in
                    try db.transaction(.immediate) {
                        try db.settleAddressKeys(limit: tiers.chunk, threshold: tiers.recentLimit)
                    }
                }
                if moved == 0 { return }
            }
        } catch {
            return
        }
    }

    /// The light writes at the head of the queue (``lateJoinWeight``), at most ``lateJoinLimit``, taken
    /// off it: they join the transaction being committed. Oldest first and a prefix of the queue, so the
    /// writes still commit in the order they were submitted.
    private func lateLightWrites() -> [PendingWrite] {
        pending.withLock { state in
            var taken = 0
            while taken < min(state.writes.count, Self.lateJoinLimit)
                && state.writes[taken].weight <= Self.lateJoinWeight
            {
                taken += 1
            }
            defer { state.writes.removeFirst(taken) }
            return Array(state.writes.prefix(taken))
        }
    }

    /// One transaction for `writes`, then for the light writes `late` hands over once they have run;
    /// returns the answers of all of them, to give after the commit, their weight, and whether the
    /// transaction committed.
    private static func commit(_ writes: [PendingWrite], _ db: SQLiteDatabase, late: () -> [PendingWrite]) -> (
        answers: [@Sendable () -> Void], weight: Int, committed: Bool
    ) {
        let weightOf = { (writes: [PendingWrite]) in writes.reduce(0) { $0 + $1.weight } }
        do {
            try db.execute("BEGIN IMMEDIATE")
        } catch {
            return (writes.map { write in { write.fail(error) } }, weightOf(writes), false)
        }
        var answers: [@Sendable ((any Error)?) -> Void] = []
        var failure: (any Error)?
        var weight = 0
        func run(_ batch: [PendingWrite]) {
            weight += weightOf(batch)
            for (index, write) in batch.enumerated() {
                answers.append(write.run(db))
                // SQLite rolls the whole transaction back on some errors (I/O, full disk): nothing of the
                // batch is left to commit, and the writes not yet run must not run outside a transaction.
                if !db.isInTransaction {
                    let error = SQLiteError(code: 1, message: "the transaction was rolled back")
                    failure = error
                    for rest in batch[(index + 1)...] { answers.append { _ in rest.fail(error) } }
                    return
                }
            }
        }
        run(writes)
        if failure == nil { run(late()) }
        if failure == nil {
            do {
                try db.execute("COMMIT")
            } catch {
                failure = error
                if db.isInTransaction { try? db.execute("ROLLBACK") }
            }
        }
        return (answers.map { answer in { [failure] in answer(failure) } }, weight, failure == nil)
    }

    /// Runs `body` on the reader connection, in one read transaction (one snapshot for all its
    /// statements): it sees every write that has returned, and never waits for the writer.
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await reader.read { db in try db.transaction(.deferred) { try body(db) } }
    }

    /// A synchronous read on the reader connection, in one read transaction, for the open outside the
    /// concurrency pool: it does not wait behind what the writer's queue holds (the recent keys' index,
    /// read as the store opens).
    func readNow<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        try reader.sync { db in try db.transaction(.deferred) { try body(db) } }
    }

    /// Synchronous access for set-up commands (`core init`) outside the concurrency pool.
    func sync<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        try queue.sync { db in try db.transaction(.immediate) { try body(db) } }
    }
}

// MARK: - Rows

extension SQLiteDatabase {
    func setting(_ key: String) throws -> String? {
        try scalarString("SELECT value FROM settings WHERE key = ?", [.text(key)])
    }

    func setSetting(_ key: String, _ value: String) throws {
        try execute(
            "INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [.text(key), .text(value)])
    }

    func project(publishableKey: String) throws -> ProjectRecord? {
        try rows(
            "SELECT id, name, publishable_key, environment FROM projects WHERE publishable_key = ?",
            [.text(publishableKey)]
        ).first.map(Self.projectRecord)
    }

    func project(name: String) throws -> ProjectRecord? {
        try rows("SELECT id, name, publishable_key, environment FROM projects WHERE name = ?", [.text(name)])
            .first.map(Self.projectRecord)
    }

    func projects() throws -> [ProjectRecord] {
        try rows("SELECT id, name, publishable_key, environment FROM projects ORDER BY created_at, id")
            .map(Self.projectRecord)
    }

    private static func projectRecord(_ row: [SQLiteValue]) -> ProjectRecord {
        ProjectRecord(
            id: row[0].text ?? "", name: row[1].text ?? "", publishableKey: row[2].text ?? "",
            environment: CoreEnvironment(rawValue: row[3].text ?? "") ?? .development)
    }

    /// Records `nonce` for `credential`, refusing one that is not above the last one seen. One statement
    /// on the accepted path (every protected request takes it); the refusal reads the last nonce.
    func advanceNonce(credential: String, to nonce: UInt64) throws {
        guard nonce > 0, nonce <= UInt64(Int64.max) else {
            throw WaasError(.preconditionFailed, "nonce must be a positive 63-bit integer")
        }
        try execute(
            "INSERT INTO nonces(credential, last_nonce) VALUES (?, ?) ON CONFLICT(credential) DO UPDATE "
                + "SET last_nonce = excluded.last_nonce WHERE excluded.last_nonce > nonces.last_nonce",
            [.text(credential), .integer(Int64(nonce))])
        guard changes == 1 else {
            let last = try scalarInt("SELECT last_nonce FROM nonces WHERE credential = ?", [.text(credential)]) ?? 0
            throw WaasError(.preconditionFailed, "nonce \(nonce) is not above the last one used (\(last))")
        }
    }

    /// The last nonce recorded for `credential` (0 when none).
    func lastNonce(credential: String) throws -> UInt64 {
        UInt64(try scalarInt("SELECT last_nonce FROM nonces WHERE credential = ?", [.text(credential)]) ?? 0)
    }

    func credential(_ id: String, project: String) throws -> CredentialRecord? {
        try rows(
            "SELECT id, project_id, account_id, type, algorithm, metadata, created_at, expires_at, revoked_at "
                + "FROM credentials WHERE id = ? AND project_id = ?", [.text(id), .text(project)]
        ).first.map { row in
            CredentialRecord(
                id: row[0].text ?? "", projectId: row[1].text ?? "", accountId: row[2].text,
                type: CredentialType(wire: row[3].text ?? ""), algorithm: row[4].text ?? "", metadataJSON: row[5].text,
                createdAt: row[6].int ?? 0, expiresAt: row[7].int ?? 0, revokedAt: row[8].int)
        }
    }

    func insertCredential(_ record: CredentialRecord) throws {
        try execute(
            "INSERT INTO credentials(id, project_id, account_id, type, algorithm, metadata, created_at, expires_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET account_id = excluded.account_id, "
                + "type = excluded.type, metadata = excluded.metadata, created_at = excluded.created_at, "
                + "expires_at = excluded.expires_at",
            [
                .text(record.id), .text(record.projectId), SQLiteValue(record.accountId), .text(record.type.rawValue),
                .text(record.algorithm), SQLiteValue(record.metadataJSON), .integer(record.createdAt),
                .integer(record.expiresAt),
            ])
    }

    func account(_ id: String) throws -> AccountRecord? {
        try rows("SELECT id, project_id, issuer, subject, email FROM accounts WHERE id = ?", [.text(id)]).first.map {
            AccountRecord(
                id: $0[0].text ?? "", projectId: $0[1].text ?? "", issuer: $0[2].text ?? "", subject: $0[3].text ?? "",
                email: $0[4].text)
        }
    }

    /// The account of (issuer, subject), created on first sign-in; a newly verified email is kept.
    func upsertAccount(project: String, issuer: String, subject: String, email: String?, now: Int64) throws
        -> AccountRecord
    {
        if let id = try scalarString(
            "SELECT id FROM accounts WHERE project_id = ? AND issuer = ? AND subject = ?",
            [.text(project), .text(issuer), .text(subject)])
        {
            if let email {
                try execute("UPDATE accounts SET email = ? WHERE id = ?", [.text(email), .text(id)])
            }
            return try account(id)!
        }
        let id = Identifier.make("acc")
        try execute(
            "INSERT INTO accounts(id, project_id, issuer, subject, email, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [.text(id), .text(project), .text(issuer), .text(subject), SQLiteValue(email), .integer(now)])
        return AccountRecord(id: id, projectId: project, issuer: issuer, subject: subject, email: email)
    }

    static let walletColumns = "seq, id, account_id, type, address, reference, key_origin"

    static func walletRecord(_ row: [SQLiteValue]) -> WalletRecord {
        WalletRecord(
            seq: row[0].int ?? 0, id: row[1].text ?? "", accountId: row[2].text ?? "",
            type: WalletType(wire: row[3].text ?? ""), address: row[4].text ?? "", reference: row[5].text,
            keyOrigin: KeyOrigin(wire: row[6].text ?? ""))
    }

    func wallet(_ id: String, account: String) throws -> WalletRecord? {
        try rows(
            "SELECT \(Self.walletColumns) FROM wallets WHERE id = ? AND account_id = ?", [.text(id), .text(account)]
        ).first.map(Self.walletRecord)
    }

    /// Any wallet of the project by id, for the public signature checks.
    func wallet(_ id: String, project: String) throws -> WalletRecord? {
        try rows(
            "SELECT \(Self.walletColumns) FROM wallets WHERE id = ? AND project_id = ?", [.text(id), .text(project)]
        ).first.map(Self.walletRecord)
    }

    func sealedKey(wallet id: String) throws -> [UInt8]? {
        try rows("SELECT sealed_key FROM wallets WHERE id = ?", [.text(id)]).first?[0].bytes
    }

    /// One page of an account's wallets in creation order, after `afterSeq`; one extra row tells whether
    /// another page follows.
    func wallets(account: String, afterSeq: Int64, limit: Int) throws -> (wallets: [WalletRecord], more: Bool) {
        let rows = try rows(
            "SELECT \(Self.walletColumns) FROM wallets WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            [.text(account), .integer(afterSeq), .integer(Int64(limit + 1))])
        let records = rows.prefix(limit).map(Self.walletRecord)
        return (Array(records), rows.count > limit)
    }
}
