import Foundation
import OMSProtocol
import SQLiteKit
import Testing

@testable import OMSCore

/// `insertWallets`: multi-row inserts whose `seq`s are read back from the last rowid. Every returned
/// `seq` must be the row's own, across chunk boundaries; references taken before the call or named twice
/// in it are skipped for creation, and imported addresses held before the call or named twice are
/// skipped with their address keys kept right.
@Suite struct WalletBulkInsertTests {
    @Test func returnsEachRowsOwnSeqAndSkipsTakenReferences() async throws {
        let (store, url) = try ImportedAddressIndexTests.makeStore()
        defer { try? FileManager.default.removeItem(at: url) }
        let count = SQLiteDatabase.insertChunk * 2 + 7
        @Sendable func record(_ index: Int, reference: String?) -> WalletRecord {
            WalletRecord(
                seq: 0, id: "wal_bulk\(index)", accountId: "acc_1", type: .solana,
                address: "addr\(index)", reference: reference, keyOrigin: .enclave)
        }
        // References r3 and r70 exist before the call; r5 is named twice in it; every tenth has none.
        let (stored, rows) = try await store.write { db in
            _ = try db.insertWallet(record(-1, reference: "r3"), project: "prj_t", sealedKey: [9], now: 1)
            _ = try db.insertWallet(record(-2, reference: "r70"), project: "prj_t", sealedKey: [9], now: 1)
            let wallets = (0..<count).map { index in
                let reference: String? = index % 10 == 9 ? nil : index == 6 ? "r5" : "r\(index)"
                return (record: record(index, reference: reference), sealedKey: [UInt8(index % 256)])
            }
            let stored = try db.insertWallets(wallets, project: "prj_t", now: 2, skippingTakenReferences: true)
            let rows = try db.rows("SELECT id, seq FROM wallets WHERE id LIKE 'wal_bulk%'")
            return (stored, rows)
        }
        var seqById: [String: Int64] = [:]
        for row in rows {
            if case .text(let id) = row[0], case .integer(let seq) = row[1] { seqById[id] = seq }
        }
        let skipped = stored.indices.filter { stored[$0] == nil }
        #expect(skipped == [3, 6, 70], "taken before the call (3, 70) or earlier in it (6 repeats r5)")
        #expect(seqById.count == count - 3 + 2, "the rows inserted, and the two made before")
        let mismatched = stored.compactMap { $0 }.filter { seqById[$0.id] != $0.seq }
        #expect(mismatched.isEmpty, "\(mismatched.count) returned seqs are not their rows'")
        #expect(stored.compactMap { $0?.seq }.count == count - 3)
    }

    @Test func importedAddressesHeldOrRepeatedAreLeftOutAndTheRestIndexed() async throws {
        let (store, url) = try ImportedAddressIndexTests.makeStore()
        defer { try? FileManager.default.removeItem(at: url) }
        let count = SQLiteDatabase.insertChunk + 10
        @Sendable func record(_ index: Int, address: String) -> WalletRecord {
            WalletRecord(
                seq: 0, id: "wal_imp\(index)", accountId: "acc_1", type: .ethereum, address: address,
                reference: "i\(index)", keyOrigin: .imported)
        }
        // addr7 is held before the call; addr12 appears at 12 and again at 40.
        let (stored, keysMatch, found) = try await store.write { db in
            _ = try db.insertWallet(record(-1, address: "addr7"), project: "prj_t", sealedKey: [9], now: 1)
            let wallets = (0..<count).map { index in
                (record: record(index, address: index == 40 ? "addr12" : "addr\(index)"), sealedKey: [UInt8(1)])
            }
            let stored = try db.insertWallets(wallets, project: "prj_t", now: 2, skippingTakenReferences: false)
            // Each kept wallet's key in the recent tier points at its own row.
            let keysMatch = try stored.compactMap { $0 }.allSatisfy { wallet in
                try db.scalarInt(
                    "SELECT count(*) FROM imported_address_keys_recent k JOIN wallets w ON w.seq = k.seq "
                        + "WHERE k.address_key = ? AND w.id = ?",
                    [.integer(WalletAddressKey.of(project: "prj_t", address: wallet.address)), .text(wallet.id)]) == 1
            }
            let found = try db.importedWallet(address: "addr12", project: "prj_t")?.id
            return (stored, keysMatch, found)
        }
        #expect(stored.indices.filter { stored[$0] == nil } == [7, 40])
        #expect(keysMatch && stored.compactMap { $0 }.count == count - 2)
        #expect(found == "wal_imp12", "the first of a repeated address is the one kept")
    }
}
