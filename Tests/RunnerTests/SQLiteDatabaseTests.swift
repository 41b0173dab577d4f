import Foundation
import SQLiteKit
import Synchronization
import Testing

@Suite struct SQLiteDatabaseTests {
    @Test func opensInWALWithExplicitSynchronous() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let db = try SQLiteDatabase(path: dir.path("a.sqlite"))
        #expect(try db.scalarString("PRAGMA journal_mode") == "wal")
        #expect(try db.scalarInt("PRAGMA synchronous") == 1)  // NORMAL
        let full = try SQLiteDatabase(
            path: dir.path("b.sqlite"),
            configuration: .init(
                flags: [.readWrite, .create], walMode: true, synchronous: .full, busyTimeoutMilliseconds: 10,
                foreignKeys: true))
        #expect(try full.scalarInt("PRAGMA synchronous") == 2)
    }

    @Test func bindsAndReadsEveryType() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let db = try SQLiteDatabase(path: dir.path("t.sqlite"))
        try db.execute("CREATE TABLE t(i INTEGER, d REAL, s TEXT, b BLOB, n TEXT)")
        let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
        try insert.bind(Int64.min, at: 1)
        try insert.bind(2.5, at: 2)
        try insert.bind("héllo\u{0}x", at: 3)
        try insert.bind([0, 1, 255], at: 4)
        try insert.bindNull(at: 5)
        #expect(try insert.step() == false)
        insert.reset()
        try insert.execute([.integer(7), .real(-1), .text(""), .blob([]), .text("z")])
        let rows = try db.rows("SELECT i, d, s, b, n FROM t ORDER BY rowid")
        #expect(rows.count == 2)
        #expect(rows[0] == [.integer(Int64.min), .real(2.5), .text("héllo\u{0}x"), .blob([0, 1, 255]), .null])
        #expect(rows[1][0] == .integer(7))
        #expect(rows[1][2] == .text(""))
        #expect(rows[1][4] == .text("z"))
    }

    @Test func cachedStatementIsReused() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        let a = try db.cachedStatement("SELECT 1")
        let b = try db.cachedStatement("SELECT 1")
        #expect(a === b)
        #expect(try db.scalarInt("SELECT ? + 1", [.integer(41)]) == 42)
    }

    @Test func transactionRollsBackOnError() throws {
        struct Boom: Error {}
        let dir = try TempDirectory()
        defer { dir.remove() }
        let db = try SQLiteDatabase(path: dir.path("tx.sqlite"))
        try db.execute("CREATE TABLE t(x INTEGER)")
        #expect(throws: Boom.self) {
            try db.transaction(.immediate) {
                try db.execute("INSERT INTO t VALUES (?)", [.integer(1)])
                throw Boom()
            }
        }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
        try db.transaction { try db.execute("INSERT INTO t VALUES (?)", [.integer(1)]) }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 1)
        #expect(!db.isInTransaction)
    }

    @Test func errorsCarryCodeMessageAndSQL() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t(x INTEGER PRIMARY KEY)")
        try db.execute("INSERT INTO t VALUES (?)", [1])
        do {
            try db.execute("INSERT INTO t VALUES (?)", [1])
            Issue.record("duplicate key accepted")
        } catch {
            #expect(error.primaryCode == 19)  // SQLITE_CONSTRAINT
            #expect(error.message.contains("UNIQUE"))
            #expect(error.sql == "INSERT INTO t VALUES (?)")
        }
        #expect(throws: SQLiteError.self) { try db.prepare("SELEC nonsense") }
    }

    @Test func migrationsRunOnceInOrder() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let migrations: [SQLiteDatabase.Migration] = [
            .init("create", sql: "CREATE TABLE t(x INTEGER)"),
            .init("add column", sql: "ALTER TABLE t ADD COLUMN y TEXT; INSERT INTO t VALUES (1, 'a')"),
        ]
        let db = try SQLiteDatabase(path: dir.path("m.sqlite"))
        #expect(try db.migrate(Array(migrations.prefix(1))) == 1)
        #expect(try db.migrate(migrations) == 1)
        #expect(try db.migrate(migrations) == 0)
        #expect(try db.userVersion == 2)
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 1)
        let broken = migrations + [.init("broken", sql: "CREATE TABLE t(x)")]
        do {
            try db.migrate(broken)
            Issue.record("broken migration applied")
        } catch {
            #expect(error.message.contains("migration 3 'broken'"))
        }
        #expect(try db.userVersion == 2)
        #expect(throws: SQLiteError.self) { try db.migrate(Array(migrations.prefix(1))) }
    }

    /// Two connections opening the same new file at once (two jobs started together on a fresh home): each
    /// reads version 0, and the second to take the write lock must find the first's migrations applied
    /// rather than run them again ("table already exists"). Many fresh files, since the race is timing's.
    @Test func connectionsMigratingOneNewFileAtOnceApplyEachMigrationOnce() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let migrations: [SQLiteDatabase.Migration] = [
            .init("one", sql: "CREATE TABLE a(x INTEGER)"), .init("two", sql: "CREATE TABLE b(y INTEGER)"),
        ]
        let failures = Mutex<[String]>([])
        let applied = Mutex(0)
        for trial in 0..<40 {
            let path = dir.path("race\(trial).sqlite")
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    let db = try SQLiteDatabase(path: path)
                    let count = try db.migrate(migrations)
                    applied.withLock { $0 += count }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        #expect(applied.withLock { $0 } == 80, "each migration of each file applied once")
    }

    @Test func queueRunsWorkOffThePoolAndPersists() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("q.sqlite")
        let queue = try DatabaseQueue(path: path, migrations: [.init("t", sql: "CREATE TABLE t(x INTEGER)")])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<20 {
                group.addTask {
                    try await queue.write { db in try db.execute("INSERT INTO t VALUES (?)", [.integer(Int64(i))]) }
                }
            }
            try await group.waitForAll()
        }
        let count = try await queue.read { db in try db.scalarInt("SELECT count(*) FROM t") }
        #expect(count == 20)
        // A second connection (another process would do the same) sees the committed rows.
        let other = try SQLiteDatabase(path: path)
        #expect(try other.scalarInt("SELECT sum(x) FROM t") == 190)
    }

    /// A writer that commits one transaction after another, holding the lock 5 ms each time with a 1 ms
    /// gap (a job's group commits), must not starve another connection's write: the waiter retries about
    /// every millisecond, so it lands in one of the gaps long before its 5 s timeout. (SQLite's own busy
    /// timeout backs off to 100 ms sleeps, which mostly wake inside a transaction: `wallet list` beside an
    /// embedded job waited until the job ended. With no gap at all, as this test first had it, a loaded CI
    /// machine starved even the 1 ms waiter: a real writer always has one between its commits.)
    @Test func aWaitingWriterGetsInBetweenBackToBackCommits() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("busy.sqlite")
        let setUp = try SQLiteDatabase(path: path)
        try setUp.execute("CREATE TABLE t(who TEXT)")
        let waiterDone = Atomic<Bool>(false)
        let writerCommits = Atomic<Int>(0)
        let writerFinished = DispatchSemaphore(value: 0)
        let writerStarted = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { writerFinished.signal() }
            guard let writer = try? SQLiteDatabase(path: path) else { return }
            var signalled = false
            // Bounded, so a broken waiter fails the test instead of hanging it.
            let deadline = ContinuousClock.now + .seconds(20)
            while !waiterDone.load(ordering: .acquiring) && ContinuousClock.now < deadline {
                try? writer.transaction(.immediate) {
                    try writer.execute("INSERT INTO t VALUES ('writer')")
                    if !signalled { writerStarted.signal(); signalled = true }
                    usleep(5_000)
                }
                writerCommits.add(1, ordering: .relaxed)
                usleep(1_000)
            }
        }
        writerStarted.wait()
        let waiter = try SQLiteDatabase(path: path)
        let commitsBefore = writerCommits.load(ordering: .relaxed)
        var waitError: SQLiteError?
        do {
            try waiter.transaction(.immediate) { try waiter.execute("INSERT INTO t VALUES ('waiter')") }
        } catch {
            waitError = error as? SQLiteError
        }
        let commitsWhileWaiting = writerCommits.load(ordering: .relaxed) - commitsBefore
        waiterDone.store(true, ordering: .releasing)
        writerFinished.wait()
        #expect(waitError == nil, "the waiter was starved: \(String(describing: waitError))")
        #expect(try setUp.scalarInt("SELECT count(*) FROM t WHERE who = 'waiter'") == 1)
        print("SQLiteDatabaseTests: the waiter got in after \(commitsWhileWaiting) of the writer's commits")
    }
}
