import Foundation
import PostgresKit
import TestSupport
import Testing

@testable import Runner

/// What only the PostgreSQL run store has: its migrations shared by processes that start at once, a
/// schema newer than the program, the URL's password kept out of messages, and the placeholders.
@Suite struct PostgresRunStoreTests {
    @Test func storesOpenedAtOnceOnANewDatabaseMigrateItOnce() async throws {
        let url = try TestPostgres.freshDatabase()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try RunStore(location: url) } }
            try await group.waitForAll()
        }
        let connection = try PostgresConnection(url: url)
        #expect(
            try connection.execute("SELECT version FROM walletops.schema_version").rows
                == [[String(RunStoreSchema.postgres.count)]])
        let store = try RunStore(location: url)
        let handle = try await store.openRun(RunIdentity(playbookName: "p", playbookHash: "h"))
        #expect(try await store.run(id: handle.runID)?.status == .running)
    }

    @Test func aSchemaNewerThanTheProgramIsRefusedWithoutThePassword() throws {
        let url = try TestPostgres.freshDatabase()
        _ = try RunStore(location: url)
        try PostgresConnection(url: url).execute("UPDATE walletops.schema_version SET version = version + 1")
        do {
            _ = try RunStore(location: url)
            Issue.record("a newer schema was opened")
        } catch let error as RunStoreError {
            #expect(error.message.contains("newer than this program's \(RunStoreSchema.postgres.count)"))
        }
        // A URL with a password to a database that does not exist: the error names it without the password.
        let missing = url.replacingOccurrences(of: "postgres@", with: "postgres:hunter2-secret@")
            .replacingOccurrences(of: "/t_", with: "/missing_t_")
        do {
            _ = try RunStore(location: missing)
            Issue.record("a missing database was opened")
        } catch {
            #expect("\(error)".contains("missing_t_"))
            #expect(!"\(error)".contains("hunter2"))
        }
    }

    @Test(arguments: StoreKind.allCases) func ofManyChecksOfAScheduleAtOnceOneFindsItDue(_ kind: StoreKind) async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let stores = try (0..<8).map { _ in try RunStore(location: place) }
        let clock = try await stores[0].currentTime()
        #expect(abs(clock - Date().timeIntervalSince1970) < 60, "the store's clock is about this machine's")
        // A schedule that fired at 1000: every check from 1000 on, with a last check before it, is due.
        for round in 0..<5 {
            let base = 1_000 + Double(round) * 100
            let due = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        try await store.checkSchedule(playbook: "sweep", at: base + Double(index) / 10) { last, now in
                            last < base && base <= now
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(due == 1, "round \(round): \(due) checks found the firing due")
        }
        #expect(try await !stores[0].checkSchedule(playbook: "sweep", at: 10) { _, _ in true }, "time never goes back")
    }

    @Test func placeholdersOutsideQuotesAreNumbered() {
        #expect(
            PostgresRunDatabase.numbered("SELECT ? , '?' , \"a?\" WHERE x = ? AND y IN (?, ?)")
                == "SELECT $1 , '?' , \"a?\" WHERE x = $2 AND y IN ($3, $4)")
    }
}
