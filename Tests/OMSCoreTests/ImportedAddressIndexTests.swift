import Foundation
import OMSProtocol
import SQLiteKit
import Testing

@testable import OMSCore

/// Migration 6: only imported wallets are in the address index. A repeated import is still refused,
/// the lookup goes through the partial index (not a table scan), and enclave-made wallets add no entry.
@Suite struct ImportedAddressIndexTests {
    @Test func importedWalletsAreIndexedAndEnclaveWalletsAreNot() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "walletops-address-index-\(UUID().uuidString).db")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try CoreStore(url: url)
        let imported = "0x" + String(repeating: "1c", count: 20)
        let made = "0x" + String(repeating: "2d", count: 20)
        @Sendable func wallet(_ id: String, _ address: String, _ origin: KeyOrigin) -> WalletRecord {
            WalletRecord(
                seq: 0, id: id, accountId: "acc_1", type: .ethereum, address: address, reference: nil, keyOrigin: origin
            )
        }
        let (repeatRefused, entries, plan, foundImported, foundMade) = try await store.write { db in
            try db.execute(
                """
                INSERT INTO projects(id, name, publishable_key, environment, created_at)
                    VALUES ('prj_t', 't', 'pk_local_sdbx_t_k', 'development', 0);
                INSERT INTO accounts(id, project_id, issuer, subject, created_at) VALUES ('acc_1', 'prj_t', 'i', 's', 0);
                """)
            _ = try db.insertWallet(wallet("wal_i", imported, .imported), project: "prj_t", sealedKey: [1], now: 1)
            for index in 0..<50 {
                _ = try db.insertWallet(
                    wallet("wal_m\(index)", made + "\(index)", .enclave), project: "prj_t", sealedKey: [1], now: 1)
            }
            var refused = false
            do {
                _ = try db.insertWallet(
                    wallet("wal_again", imported, .imported), project: "prj_t", sealedKey: [1], now: 1)
            } catch let error as WaasError where error.code == .addressAlreadyImported {
                refused = true
            }
            // The index's own entry count (the planner's index scan over it).
            let entries = try db.scalarInt(
                "SELECT count(*) FROM wallets INDEXED BY wallets_by_imported_address_key WHERE key_origin = 'imported'")
            let plan = try db.rows(
                "EXPLAIN QUERY PLAN SELECT seq FROM wallets WHERE address_key = 1 AND key_origin = 'imported' "
                    + "AND project_id = 'prj_t' AND address = 'x'"
            ).map { "\($0)" }.joined(separator: " ")
            return (
                refused, entries, plan, try db.importedWallet(address: imported, project: "prj_t")?.id,
                try db.importedWallet(address: made + "0", project: "prj_t")?.id
            )
        }
        #expect(repeatRefused, "a key imported twice is refused")
        #expect(entries == 1, "only the imported wallet is in the index")
        #expect(plan.contains("wallets_by_imported_address_key"), "the lookup uses the partial index: \(plan)")
        #expect(foundImported == "wal_i")
        #expect(foundMade == nil, "an enclave-made wallet is not an import's duplicate")
    }
}
