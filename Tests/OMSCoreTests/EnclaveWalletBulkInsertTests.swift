import Foundation
import OMSProtocol
import SQLiteKit
import Testing

@testable import OMSCore

/// `insertEnclaveWalletsUnlessReferenced`: multi-row inserts whose `seq`s are read back from the last
/// rowid. Every returned `seq` must be the row's own, across chunk boundaries, with references taken
/// before the call and named twice within it skipped.
@Suite struct EnclaveWalletBulkInsertTests {
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
            let stored = try db.insertEnclaveWalletsUnlessReferenced(wallets, project: "prj_t", now: 2)
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
}
