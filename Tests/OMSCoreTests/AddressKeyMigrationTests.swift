import Foundation
import OMSProtocol
import SQLiteKit
import Testing

@testable import OMSCore

/// Migrations 5 and 6 on a database written by migration 4 (imported wallets, which the address index covers): the wallets table is rebuilt with address keys,
/// its rows, their `seq`, the AUTOINCREMENT counter and the rows that reference wallets all kept.
@Suite struct AddressKeyMigrationTests {
    @Test func walletsKeepTheirRowsAndReferencesAndAddressesStayUnique() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "walletops-migration-\(UUID().uuidString).db")
        defer { try? FileManager.default.removeItem(at: url) }
        let v4 = try DatabaseQueue(path: url.path, migrations: Array(CoreSchema.migrations.prefix(4)))
        let addresses = (1...300).map { "0x" + String(format: "%040x", $0 * 7919) }
        try await v4.write { db in
            try db.execute(
                """
                INSERT INTO projects(id, name, publishable_key, environment, created_at)
                    VALUES ('prj_t', 't', 'pk_local_sdbx_t_k', 'development', 0);
                INSERT INTO accounts(id, project_id, issuer, subject, created_at) VALUES ('acc_1', 'prj_t', 'i', 's', 0);
                INSERT INTO credentials(id, project_id, account_id, type, algorithm, created_at, expires_at)
                    VALUES ('0x04a', 'prj_t', 'acc_1', 'remote', 'ecdsa-p256k-eip191', 0, 999);
                """)
            for (index, address) in addresses.enumerated() {
                try db.execute(
                    "INSERT INTO wallets(id, project_id, account_id, type, address, reference, key_origin, sealed_key, "
                        + "created_at) VALUES (?, 'prj_t', 'acc_1', 'ethereum', ?, ?, 'imported', x'00', 0)",
                    [.text("wal_\(index)"), .text(address), .text("r\(index)")])
            }
            // Gaps in seq and a counter above the last row: the rebuilt table must not reuse either.
            try db.execute("DELETE FROM wallets WHERE id IN ('wal_7', 'wal_299')")
            try db.execute(
                "INSERT INTO access_grants(account_id, type, credential_id, session_id, wallet_id, created_at) "
                    + "VALUES ('acc_1', 'remote', '0x04a', 'ses_1', 'wal_5', 0)")
        }
        let before = try await v4.read { db in
            try db.rows("SELECT seq, id, address, reference FROM wallets ORDER BY seq").map { "\($0)" }
        }
        let store = try CoreStore(url: url)
        let after = try await store.read { db in
            try db.rows("SELECT seq, id, address, reference FROM wallets ORDER BY seq").map { "\($0)" }
        }
        #expect(before.count == 298 && after == before)
        let (brokenKeys, version, found, missing) = try await store.read { db in
            (
                try db.rows("PRAGMA foreign_key_check").count, try db.scalarInt("PRAGMA user_version"),
                // The index finds each wallet by its address.
                try addresses.map { try db.importedWallet(address: $0, project: "prj_t")?.id ?? "-" },
                try db.importedWallet(address: addresses[5], project: "prj_other") == nil
            )
        }
        #expect(brokenKeys == 0 && version == Int64(CoreSchema.migrations.count) && missing)
        #expect(found == addresses.indices.map { [7, 299].contains($0) ? "-" : "wal_\($0)" })
        let (next, duplicate) = try await store.write { db -> (Int64, WaasError?) in
            let fresh = WalletRecord(
                seq: 0, id: "wal_new", accountId: "acc_1", type: .ethereum,
                address: "0x" + String(repeating: "ab", count: 20),
                reference: nil, keyOrigin: .imported)
            let stored = try db.insertWallet(fresh, project: "prj_t", sealedKey: [1], now: 1)
            var copy = fresh
            copy.id = "wal_copy"
            copy.address = addresses[5]
            do {
                _ = try db.insertWallet(copy, project: "prj_t", sealedKey: [1], now: 1)
                return (stored.seq, nil)
            } catch let error as WaasError {
                return (stored.seq, error)
            }
        }
        #expect(next == 301, "the AUTOINCREMENT counter continues above every seq ever used")
        #expect(duplicate?.code == .addressAlreadyImported)
        // The same address in another project is another wallet.
        let otherSeq = try await store.write { db in
            try db.execute(
                "INSERT INTO projects(id, name, publishable_key, environment, created_at) "
                    + "VALUES ('prj_u', 'u', 'pk_local_sdbx_u_k', 'development', 0)")
            let other = WalletRecord(
                seq: 0, id: "wal_other", accountId: "acc_1", type: .ethereum, address: addresses[5], reference: nil,
                keyOrigin: .imported)
            return try db.insertWallet(other, project: "prj_u", sealedKey: [1], now: 1).seq
        }
        #expect(otherSeq == 302)
    }
}
