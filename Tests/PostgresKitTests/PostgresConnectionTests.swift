import Foundation
import PostgresKit
import Synchronization
import TestSupport
import Testing

/// PostgresKit against a real PostgreSQL 15 (TestPostgres): parameters, NULL, bytes, errors with their
/// SQLSTATE, transactions, `FOR UPDATE SKIP LOCKED` claims across connections, and a terminated backend.
@Suite struct PostgresConnectionTests {
    /// How many times each chunk was claimed.
    final class Claims: Sendable {
        private let state = Mutex<[Int64: Int]>([:])
        func add(_ id: Int64) { state.withLock { $0[id, default: 0] += 1 } }
        var counts: [Int64: Int] { state.withLock { $0 } }
    }

    @Test func parametersAndResultsRoundTripAsText() throws {
        let db = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text, blob bytea, ok boolean, x double precision)")
        let inserted = try db.execute(
            "INSERT INTO t VALUES ($1, $2, $3, $4, $5), ($6, $7, $8, $9, $10)",
            [
                1, "a,b \"quoted\" ünïcode", .bytes([0, 1, 254, 255]), .bool(true), .real(1.5), 2, .null, .null, .null,
                .null,
            ])
        #expect(inserted.affected == 2)
        let rows = try db.execute("SELECT id, name, encode(blob, 'hex'), ok, x FROM t ORDER BY id")
        #expect(rows.columns == ["id", "name", "encode", "ok", "x"])
        #expect(rows.rows == [["1", "a,b \"quoted\" ünïcode", "0001feff", "t", "1.5"], ["2", nil, nil, nil, nil]])
        #expect(try db.execute("SELECT count(*) FROM t WHERE name = $1", ["a,b \"quoted\" ünïcode"]).scalarInt == 1)
    }

    @Test func errorsCarryTheirSQLStateAndTheConnectionGoesOn() throws {
        let db = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        try db.execute("INSERT INTO t VALUES (1)")
        do {
            try db.execute("INSERT INTO t VALUES ($1)", [1])
            Issue.record("a duplicate key was accepted")
        } catch {
            #expect(error.isUniqueViolation)
            #expect(!error.isConnectionLost)
            #expect(error.message.contains("duplicate key"))
        }
        do {
            try db.execute("SELEC 1")
            Issue.record("bad SQL was accepted")
        } catch {
            #expect(error.sqlState == "42601", "syntax error")
        }
        #expect(try db.execute("SELECT 41 + 1").scalarInt == 42)
    }

    @Test func executeEachPipelinesItsRowsAndStopsAtTheFirstFailure() throws {
        let db = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text)")
        // More rows than one pipeline batch, the same effect as one statement after another (the second
        // write of a key overwrites the first).
        let rows: [[PostgresValue]] = (0..<1_000).map { [.integer(Int64($0 % 700)), .text("row \($0)")] }
        try db.transaction {
            try db.executeEach(
                "INSERT INTO t VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = excluded.name", rows)
        }
        #expect(try db.execute("SELECT count(*) FROM t").scalarInt == 700)
        #expect(try db.execute("SELECT name FROM t WHERE id = 5").scalar == "row 705")
        #expect(try db.execute("SELECT name FROM t WHERE id = 699").scalar == "row 699")
        // A duplicate key in the middle: the error is the statement's, and the transaction leaves nothing.
        let bad: [[PostgresValue]] = (0..<600).map { [.integer(Int64(10_000 + ($0 == 400 ? 0 : $0))), .null] }
        do {
            try db.transaction { try db.executeEach("INSERT INTO t VALUES ($1, $2)", bad) }
            Issue.record("a duplicate key was accepted")
        } catch let error as PostgresError {
            #expect(error.isUniqueViolation, "\(error)")
        }
        #expect(try db.execute("SELECT count(*) FROM t WHERE id >= 10000").scalarInt == 0)
        #expect(try db.execute("SELECT 41 + 1").scalarInt == 42, "the connection goes on")
    }

    @Test func aTransactionThatThrowsLeavesNothing() throws {
        let db = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try db.execute("CREATE TABLE t (id bigint)")
        struct Stop: Error {}
        do {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (1)")
                throw Stop()
            }
            Issue.record("the transaction did not throw")
        } catch {
            #expect(error is Stop)
        }
        try db.transaction { try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try db.execute("SELECT array_agg(id) FROM t").scalar == "{2}")
    }

    @Test func skipLockedClaimsHandEachRowToOneConnection() async throws {
        let url = try TestPostgres.freshDatabase()
        let setup = try PostgresConnection(url: url)
        try setup.execute("CREATE TABLE chunks (id bigint PRIMARY KEY, owner int)")
        try setup.execute("INSERT INTO chunks SELECT g, NULL FROM generate_series(1, 200) g")
        let claimed = Claims()
        // Four workers on their own connections claim one chunk at a time until none is left.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 1...4 {
                group.addTask {
                    let queue = try PostgresQueue(url: url)
                    while true {
                        let id: Int64? = try await queue.write { db in
                            let row = try db.execute(
                                "SELECT id FROM chunks WHERE owner IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED")
                            guard let id = row.scalarInt else { return nil }
                            try db.execute(
                                "UPDATE chunks SET owner = $1 WHERE id = $2", [.integer(Int64(worker)), .integer(id)])
                            return id
                        }
                        guard let id else { return }
                        claimed.add(id)
                    }
                }
            }
            try await group.waitForAll()
        }
        let counts = claimed.counts
        #expect(counts.count == 200)
        #expect(counts.values.allSatisfy { $0 == 1 }, "no chunk was claimed twice")
        #expect(try setup.execute("SELECT count(DISTINCT owner) FROM chunks").scalarInt ?? 0 >= 1)
    }

    @Test func aTerminatedBackendIsReportedLostAndTheNextStatementReconnects() throws {
        let url = try TestPostgres.freshDatabase()
        let db = try PostgresConnection(url: url)
        let admin = try PostgresConnection(url: url)
        let pid = db.backendPID
        try admin.execute("SELECT pg_terminate_backend($1)", [.integer(Int64(pid))])
        do {
            try db.execute("SELECT 1")
            Issue.record("a terminated backend answered")
        } catch {
            #expect(error.isConnectionLost, "\(error)")
        }
        #expect(try db.execute("SELECT 1").scalarInt == 1)
        #expect(db.backendPID != pid)
    }

    @Test func aServerThatIsNotThereIsAClearErrorWithoutThePassword() throws {
        do {
            _ = try PostgresConnection(url: "postgresql://ops:s3cret-pass@127.0.0.1:1/runs?connect_timeout=2")
            Issue.record("connected to port 1")
        } catch {
            #expect(error.isConnectionLost)
            #expect(error.message.contains("127.0.0.1"))
            #expect(!error.description.contains("s3cret-pass"))
        }
    }
}
