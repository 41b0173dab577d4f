import Foundation
import OMSProtocol
import SQLiteKit
import Testing

@testable import OMSCore

/// Migration 6: imported wallets' address keys live in a recent and a settled tier, enclave-made
/// wallets in neither. A repeated import is refused whichever tier holds the first one, lookups use
/// the tiers' primary keys (never a scan), and the writer settles keys without losing one.
@Suite struct ImportedAddressIndexTests {
    static func makeStore(_ tiers: AddressKeyTiers = AddressKeyTiers()) throws -> (CoreStore, URL) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "walletops-address-index-\(UUID().uuidString).db")
        let store = try CoreStore(url: url, addressKeyTiers: tiers)
        try store.sync { db in
            try db.execute(
                """
                INSERT INTO projects(id, name, publishable_key, environment, created_at)
                    VALUES ('prj_t', 't', 'pk_local_sdbx_t_k', 'development', 0);
                INSERT INTO accounts(id, project_id, issuer, subject, created_at) VALUES ('acc_1', 'prj_t', 'i', 's', 0);
                """)
        }
        return (store, url)
    }

    static func wallet(_ id: String, _ address: String, _ origin: KeyOrigin) -> WalletRecord {
        WalletRecord(
            seq: 0, id: id, accountId: "acc_1", type: .ethereum, address: address, reference: nil, keyOrigin: origin)
    }

    static func insertRefused(_ db: SQLiteDatabase, _ record: WalletRecord) throws -> Bool {
        do {
            _ = try db.insertWallet(record, project: "prj_t", sealedKey: [1], now: 1)
            return false
        } catch let error as WaasError where error.code == .addressAlreadyImported {
            return true
        }
    }

    @Test func importedWalletsAreIndexedAndEnclaveWalletsAreNot() async throws {
        let (store, url) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: url) }
        let imported = "0x" + String(repeating: "1c", count: 20)
        let made = "0x" + String(repeating: "2d", count: 20)
        let (repeatRefused, entries, plan, foundImported, foundMade) = try await store.write { db in
            _ = try db.insertWallet(Self.wallet("wal_i", imported, .imported), project: "prj_t", sealedKey: [1], now: 1)
            for index in 0..<50 {
                _ = try db.insertWallet(
                    Self.wallet("wal_m\(index)", made + "\(index)", .enclave), project: "prj_t", sealedKey: [1], now: 1)
            }
            let refused = try Self.insertRefused(db, Self.wallet("wal_again", imported, .imported))
            let entries = try db.scalarInt(
                "SELECT (SELECT count(*) FROM imported_address_keys_recent) + (SELECT count(*) FROM imported_address_keys)"
            )
            let plan = try db.rows(
                "EXPLAIN QUERY PLAN SELECT seq FROM wallets WHERE seq IN ("
                    + "SELECT seq FROM imported_address_keys_recent WHERE address_key = 1 "
                    + "UNION ALL SELECT seq FROM imported_address_keys WHERE address_key = 1) "
                    + "AND project_id = 'prj_t' AND address = 'x' ORDER BY seq LIMIT 1"
            ).map { "\($0)" }.joined(separator: " | ")
            return (
                refused, entries, plan, try db.importedWallet(address: imported, project: "prj_t")?.id,
                try db.importedWallet(address: made + "0", project: "prj_t")?.id
            )
        }
        #expect(repeatRefused, "a key imported twice is refused")
        #expect(entries == 1, "only the imported wallet has an address key entry")
        #expect(!plan.contains("SCAN"), "the lookup searches primary keys only: \(plan)")
        #expect(foundImported == "wal_i")
        #expect(foundMade == nil, "an enclave-made wallet is not an import's duplicate")
    }

    /// The address key is a 64-bit hash of project and address, so a key held by another address is a
    /// possible (if unlikely) hit of the existence probe: the wallet row decides, and the import goes on.
    @Test func aKeyHeldByAnotherAddressIsNoDuplicate() async throws {
        let (store, url) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: url) }
        let first = "0x" + String(repeating: "3e", count: 20)
        let second = "0x" + String(repeating: "4f", count: 20)
        let (found, refused, plan) = try await store.write { db in
            let stored = try db.insertWallet(
                Self.wallet("wal_a", first, .imported), project: "prj_t", sealedKey: [1], now: 1)
            // A collision, made by hand: the second address's key pointing at the first wallet.
            let key = WalletAddressKey.of(project: "prj_t", address: second)
            try db.execute(
                "INSERT INTO imported_address_keys(address_key, seq) VALUES (?, ?)",
                [.integer(key), .integer(stored.seq)])
            let found = try db.importedWallet(address: second, project: "prj_t")?.id
            let refused = try Self.insertRefused(db, Self.wallet("wal_b", second, .imported))
            let plan = try db.rows(
                "EXPLAIN QUERY PLAN SELECT EXISTS (SELECT 1 FROM imported_address_keys_recent WHERE address_key = 1) "
                    + "OR EXISTS (SELECT 1 FROM imported_address_keys WHERE address_key = 1)"
            ).map { "\($0)" }.joined(separator: " | ")
            return (found, refused, plan)
        }
        #expect(found == nil, "another address's key is not this address's wallet")
        #expect(!refused, "the import of the second address goes on")
        #expect(
            !plan.contains("SCAN imported")
                && plan.components(separatedBy: "USING PRIMARY KEY (address_key=?)").count == 3,
            "the probe searches both tiers' primary keys only: \(plan)")
        let both = try await store.write { db in
            try db.importedWallet(address: second, project: "prj_t")?.id
        }
        #expect(both == "wal_b")
    }

    /// Small tiers so a few hundred imports settle several times: every key ends in exactly one tier,
    /// the recent tier stays near its limit, and duplicates are refused in both tiers.
    @Test func settlingMovesEveryKeyOnceAndKeepsDuplicatesRefused() async throws {
        let tiers = AddressKeyTiers(recentLimit: 64, chunk: 16, checkEvery: 32)
        let (store, url) = try Self.makeStore(tiers)
        defer { try? FileManager.default.removeItem(at: url) }
        let addresses = (0..<600).map { "0x" + String(format: "%040x", $0 &* 2_654_435_761 % 1_000_003) }
        for start in stride(from: 0, to: addresses.count, by: 20) {
            try await store.write(weight: 20) { db in
                for index in start..<(start + 20) {
                    _ = try db.insertWallet(
                        Self.wallet("wal_\(index)", addresses[index], .imported), project: "prj_t", sealedKey: [1],
                        now: 1)
                }
            }
        }
        let (recent, settled, distinct, found, refusedSettled, refusedRecent) = try await store.write { db in
            let recent = try db.recentAddressKeyCount()
            let settled = Int(try db.scalarInt("SELECT count(*) FROM imported_address_keys") ?? 0)
            let distinct = Int(
                try db.scalarInt(
                    "SELECT count(DISTINCT seq) FROM (SELECT seq FROM imported_address_keys_recent "
                        + "UNION ALL SELECT seq FROM imported_address_keys)") ?? 0)
            let found = try addresses.indices.filter {
                try db.importedWallet(address: addresses[$0], project: "prj_t")?.id == "wal_\($0)"
            }.count
            // The oldest key is long settled; the newest may still be recent.
            let settledRefused = try Self.insertRefused(db, Self.wallet("wal_a", addresses[0], .imported))
            let recentRefused = try Self.insertRefused(db, Self.wallet("wal_b", addresses[599], .imported))
            return (recent, settled, distinct, found, settledRefused, recentRefused)
        }
        #expect(recent + settled == 600 && distinct == 600, "each key in exactly one tier: \(recent) + \(settled)")
        #expect(settled >= 500, "the writer settled keys as the recent tier filled: \(settled) settled")
        #expect(recent < tiers.recentLimit + tiers.checkEvery, "the recent tier stays near its limit: \(recent)")
        #expect(found == 600, "every wallet is found by its address")
        #expect(refusedSettled && refusedRecent)
    }
}
