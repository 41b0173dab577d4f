import Foundation
import OMSProtocol
import SQLiteKit
import Testing

@testable import OMSCore

/// `insertImportedWallets`, the batch import's writer: windows of `insertChunk` wallets probed together and
/// inserted by multi-row statements. It must refuse exactly what one-by-one inserts refuse: an address
/// held in either tier, and one named earlier in the same call, in the same window (before or after the
/// window's pending rows went in) or an earlier one; and it must store an address whose key only
/// collides with another's.
@Suite struct ImportedWalletBulkInsertTests {
    static func address(_ index: Int) -> String { "0x" + String(format: "%040x", index &* 2_654_435_761 % 1_000_003) }

    static func row(_ id: String, _ address: String, key: Int64? = nil) -> SQLiteDatabase.ImportedWalletRow {
        SQLiteDatabase.ImportedWalletRow(
            record: ImportedAddressIndexTests.wallet(id, address, .imported),
            addressKey: key ?? WalletAddressKey.of(project: "prj_t", address: address), sealedKey: [7])
    }

    @Test func refusesEveryHeldAddressAndStoresEveryNewOne() async throws {
        // Small tiers: the earlier imports settle while they are made, so both tiers hold some.
        let tiers = AddressKeyTiers(recentLimit: 64, chunk: 16, checkEvery: 32, filterBuildAfter: 1)
        let (store, url) = try ImportedAddressIndexTests.makeStore(tiers)
        defer { try? FileManager.default.removeItem(at: url) }
        for start in stride(from: 0, to: 300, by: 50) {
            let holders = try await store.write(weight: 50) { db in
                try db.insertImportedWallets(
                    (start..<(start + 50)).map { Self.row("wal_old\($0)", Self.address($0)) }, project: "prj_t",
                    now: 1)
            }
            #expect(holders.allSatisfy { $0 == nil }, "new addresses are stored")
        }
        let chunk = SQLiteDatabase.insertChunk
        var rows = (0..<(chunk * 3)).map { Self.row("wal_new\($0)", Self.address(1_000 + $0)) }
        var expected = [String?](repeating: nil, count: rows.count)
        // Held before the call: settled long ago (0) and recent (299).
        for (position, old) in [(3, 0), (chunk + 5, 299)] {
            rows[position] = Self.row("wal_again\(position)", Self.address(old))
            expected[position] = "wal_old\(old)"
        }
        // Named earlier in the call: in the same window, three times (the second repeat comes after the
        // window's pending rows went in for the first), and in an earlier window.
        for position in [12, 20, chunk * 2 + 1] {
            rows[position] = Self.row("wal_repeat\(position)", Self.address(1_010))
            expected[position] = "wal_new10"
        }
        // A key collision made by hand: another address with the key of an address stored in this call.
        let collidingKey = WalletAddressKey.of(project: "prj_t", address: Self.address(1_030))
        rows[40] = Self.row("wal_collide", "0x" + String(repeating: "ab", count: 20), key: collidingKey)
        let batch = rows
        let (holders, duplicated, wallets, entries, matched, settled) = try await store.write(weight: batch.count) {
            db in
            let holders = try db.insertImportedWallets(batch, project: "prj_t", now: 2)
            let duplicated = try db.scalarInt(
                "SELECT count(*) FROM (SELECT address FROM wallets GROUP BY project_id, address HAVING count(*) > 1)")
            let wallets = try db.scalarInt("SELECT count(*) FROM wallets")
            let settled = try db.scalarInt("SELECT count(*) FROM imported_address_keys") ?? 0
            let entries = Int64(try db.recentAddressKeyCount()) + settled
            // Each settled entry names its own wallet's seq and key.
            let matched = try db.scalarInt(
                "SELECT count(*) FROM imported_address_keys AS k "
                    + "JOIN wallets AS w ON w.seq = k.seq AND w.address_key = k.address_key"
            )
            return (holders, duplicated, wallets, entries, matched, settled)
        }
        #expect(holders.map { $0?.id } == expected, "the holders, by position")
        #expect(duplicated == 0, "no address is stored twice")
        let stored = 300 + rows.count - expected.compactMap { $0 }.count
        #expect(wallets == Int64(stored), "every new address is stored, the colliding one too")
        #expect(entries == Int64(stored) && matched == settled, "one address key entry per wallet, its own")
        let found = try await store.write { db in
            try db.importedWallet(
                address: "0x" + String(repeating: "ab", count: 20), project: "prj_t", key: collidingKey)?
                .id
        }
        #expect(found == "wal_collide", "found through the key it was stored under")
    }
}
