import Foundation
import OMSProtocol
import SQLiteKit
import Testing

@testable import OMSCore

/// Migration 8: the recent address keys are each connection's memory index of the imported wallets past
/// the settled watermark (``RecentAddressKeys``). It must never miss a wallet: not one another connection
/// (another process on the same home) stored, not one at a `seq` reused after a rollback; and what it holds
/// in excess (a rolled-back insert) must never refuse an address.
@Suite struct RecentAddressKeysTests {
    static let unsettled = AddressKeyTiers(recentLimit: 1_000_000, chunk: 4_096, checkEvery: 1_000_000)
    static func address(_ index: Int) -> String { "0x" + String(format: "%040x", index &* 2_654_435_761 % 1_000_003) }

    static func insert(_ db: SQLiteDatabase, _ id: String, _ index: Int) throws {
        _ = try db.insertWallet(
            ImportedAddressIndexTests.wallet(id, address(index), .imported), project: "prj_t", sealedKey: [1], now: 1)
    }

    static func refused(_ db: SQLiteDatabase, _ id: String, _ index: Int) throws -> Bool {
        try ImportedAddressIndexTests.insertRefused(db, ImportedAddressIndexTests.wallet(id, address(index), .imported))
    }

    @Test func anotherConnectionsRecentImportsAreRefused() async throws {
        let (store, url) = try ImportedAddressIndexTests.makeStore(Self.unsettled)
        defer { try? FileManager.default.removeItem(at: url) }
        try await store.write { db in try Self.insert(db, "wal_1", 1) }
        let other = try CoreStore(url: url, addressKeyTiers: Self.unsettled)
        let (otherRefusesFirst, _) = try await other.write { db in
            (try Self.refused(db, "wal_1b", 1), try Self.insert(db, "wal_2", 2))
        }
        // The other connection also imports a batch, enclave wallets between.
        try await other.write(weight: 40) { db in
            _ = try db.insertWallet(
                ImportedAddressIndexTests.wallet("wal_m", "0x" + String(repeating: "2d", count: 20), .enclave),
                project: "prj_t", sealedKey: [1], now: 1)
            let rows = (3..<40).map { index in
                SQLiteDatabase.ImportedWalletRow(
                    record: ImportedAddressIndexTests.wallet("wal_\(index)", Self.address(index), .imported),
                    addressKey: WalletAddressKey.of(project: "prj_t", address: Self.address(index)), sealedKey: [1])
            }
            _ = try db.insertImportedWallets(rows, project: "prj_t", now: 1)
        }
        let (refusedSecond, refusedBatch, settled, builds) = try await store.write { db in
            (
                try Self.refused(db, "wal_2b", 2), try (3..<40).allSatisfy { try Self.refused(db, "wal_\($0)b", $0) },
                try db.scalarInt("SELECT count(*) FROM imported_address_keys"), db.recentAddressKeys.builds
            )
        }
        #expect(otherRefusesFirst, "a new connection's index holds the wallets stored before it opened")
        #expect(refusedSecond && refusedBatch, "the wallets another connection stored since are refused")
        #expect(settled == 0, "none was settled: the index found them all")
        #expect(builds == 1, "caught up, not built again")
    }

    @Test func aRolledBackImportIsForgottenAndItsSeqReusedByAnotherConnectionIsSeen() async throws {
        let (store, url) = try ImportedAddressIndexTests.makeStore(Self.unsettled)
        defer { try? FileManager.default.removeItem(at: url) }
        struct Abort: Error {}
        let seqs = try store.queue.sync { db -> [Int64] in
            try db.transaction { try Self.insert(db, "wal_1", 1) }
            var seqs: [Int64] = []
            _ = try? db.transaction { () throws -> Void in
                try Self.insert(db, "wal_2", 2)
                seqs.append(db.lastInsertRowID)
                throw Abort()
            }
            return seqs
        }
        let other = try CoreStore(url: url, addressKeyTiers: Self.unsettled)
        let reused = try await other.write { db -> Int64 in
            try Self.insert(db, "wal_3", 3)
            return db.lastInsertRowID
        }
        #expect(reused == seqs.first, "the other connection's wallet took the rolled-back seq")
        let (refusedReused, refusedRolledBack, builds) = try await store.write { db in
            (try Self.refused(db, "wal_3b", 3), try Self.refused(db, "wal_2b", 2), db.recentAddressKeys.builds)
        }
        #expect(refusedReused, "the wallet at the reused seq is found")
        #expect(!refusedRolledBack, "the rolled-back address was never stored: it imports")
        #expect(builds == 2, "the index was built again once its last seen wallet was gone")
    }

    @Test func keysRolledBackToTheirSavepointAreForgotten() async throws {
        let tiers = AddressKeyTiers(recentLimit: 1, chunk: 4_096, checkEvery: 1, filterBuildAfter: 1)
        let (store, url) = try ImportedAddressIndexTests.makeStore(tiers)
        defer { try? FileManager.default.removeItem(at: url) }
        let refusedAfter = try await store.write { db in
            try db.execute("SAVEPOINT request")
            try Self.insert(db, "wal_p", 1)
            try Self.insert(db, "wal_q", 2)
            try db.execute("ROLLBACK TO request")
            try db.execute("RELEASE request")
            // Both seqs are reused, the first by another address: the index, whose last seen row is gone, is
            // built again before this insert.
            try Self.insert(db, "wal_r", 3)
            try Self.insert(db, "wal_p2", 1)
            return try Self.refused(db, "wal_p3", 1)
        }
        #expect(refusedAfter, "the address imports once (the insert above did not throw), then is refused")
        // The settle (recentLimit 1) has run after that write: only the two stored wallets' keys moved.
        let (found, notHeld, wallets, settled, builds) = try await store.write { db in
            (
                try [1, 3].map { try db.importedWallet(address: Self.address($0), project: "prj_t")?.id },
                try db.importedWallet(address: Self.address(2), project: "prj_t") == nil,
                try db.scalarInt("SELECT count(*) FROM wallets"),
                try db.scalarInt("SELECT count(*) FROM imported_address_keys"), db.recentAddressKeys.builds
            )
        }
        #expect(found == ["wal_p2", "wal_r"] && notHeld && wallets == 2)
        #expect(settled == 2 && builds == 2, "the rolled-back keys were forgotten: \(settled ?? -1), \(builds)")
        let stored = try await store.write { db in try Self.refused(db, "wal_q2", 2) }
        #expect(!stored, "a rolled-back address imports")
    }

    /// A home written before migration 8 keeps every key: the recent table's keys are settled, the
    /// watermark is the last wallet, and lookups and refusals work across the upgrade.
    @Test func migrationEightSettlesTheRecentTable() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "walletops-migration8-\(UUID().uuidString).db")
        defer { try? FileManager.default.removeItem(at: url) }
        let v7 = try DatabaseQueue(path: url.path, migrations: Array(CoreSchema.migrations.prefix(7)))
        try await v7.write { db in
            try db.execute(
                """
                INSERT INTO projects(id, name, publishable_key, environment, created_at)
                    VALUES ('prj_t', 't', 'pk_local_sdbx_t_k', 'development', 0);
                INSERT INTO accounts(id, project_id, issuer, subject, created_at) VALUES ('acc_1', 'prj_t', 'i', 's', 0);
                """)
            for index in 0..<20 {
                let address = Self.address(index)
                let key = WalletAddressKey.of(project: "prj_t", address: address)
                try db.execute(
                    "INSERT INTO wallets(id, project_id, account_id, type, address, address_key, key_origin, "
                        + "sealed_key, created_at) VALUES (?, 'prj_t', 'acc_1', 'ethereum', ?, ?, 'imported', x'00', 0)",
                    [.text("wal_\(index)"), .text(address), .integer(key)])
                let tier = index < 10 ? "imported_address_keys" : "imported_address_keys_recent"
                try db.execute(
                    "INSERT INTO \(tier)(address_key, seq) VALUES (?, ?)",
                    [.integer(key), .integer(db.lastInsertRowID)])
            }
        }
        let store = try CoreStore(url: url, addressKeyTiers: Self.unsettled)
        let (tables, settled, watermark, found, refused) = try await store.write { db in
            (
                try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'imported_address_keys_recent'"),
                try db.scalarInt("SELECT count(*) FROM imported_address_keys"),
                try db.scalarInt("SELECT settled_through FROM address_key_settlements"),
                try (0..<20).map { try db.importedWallet(address: Self.address($0), project: "prj_t")?.id ?? "-" },
                try Self.refused(db, "wal_again", 15)
            )
        }
        #expect(tables == 0 && settled == 20 && watermark == 20)
        #expect(found == (0..<20).map { "wal_\($0)" } && refused)
    }
}

extension RecentAddressKeysTests {
    /// Enclave-made wallets are not indexed, but a new connection's build reads every wallet row past the
    /// watermark: many of them move the watermark on even with few imported keys to settle.
    @Test func manyEnclaveWalletsMoveTheWatermarkOn() async throws {
        let tiers = AddressKeyTiers(recentLimit: 8, chunk: 4, checkEvery: 16)
        let (store, url) = try ImportedAddressIndexTests.makeStore(tiers)
        defer { try? FileManager.default.removeItem(at: url) }
        try await store.write { db in try Self.insert(db, "wal_i", 1) }
        for batch in 0..<10 {
            try await store.write(weight: 20) { db in
                for index in 0..<20 {
                    _ = try db.insertWallet(
                        ImportedAddressIndexTests.wallet(
                            "wal_m\(batch)_\(index)", Self.address(100 + 20 * batch + index), .enclave),
                        project: "prj_t", sealedKey: [1], now: 1)
                }
            }
        }
        let (watermark, settled, refused) = try await store.write { db in
            (
                try db.scalarInt("SELECT settled_through FROM address_key_settlements") ?? 0,
                try db.scalarInt("SELECT count(*) FROM imported_address_keys"), try Self.refused(db, "wal_i2", 1)
            )
        }
        #expect(watermark >= 201 - 8 * 8 - 20, "the watermark follows the rows: \(watermark) of 201")
        #expect(settled == 1 && refused, "the one imported key was settled and is still refused")
    }
}
