import Foundation
import OMSProtocol
import SQLiteKit
import Testing

@testable import OMSCore

/// Migration 2 on a database written by migration 1: existing direct credentials become grants.
@Suite struct AccessMigrationTests {
    @Test func existingCredentialsBecomeDirectGrantsInSignInOrder() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "walletops-migration-\(UUID().uuidString).db")
        defer { try? FileManager.default.removeItem(at: url) }
        let v1 = try DatabaseQueue(path: url.path, migrations: Array(CoreSchema.migrations.prefix(1)))
        try await v1.write { db in
            try db.execute(
                "INSERT INTO projects(id, name, publishable_key, environment, created_at) "
                    + "VALUES ('prj_t', 't', 'pk_local_sdbx_t_k', 'development', 0)")
            try db.execute(
                "INSERT INTO accounts(id, project_id, issuer, subject, created_at) VALUES ('acc_1', 'prj_t', 'i', 's', 0)"
            )
            for (id, created, revoked) in [("0x04b", 20, "NULL"), ("0x04a", 10, "NULL"), ("0x04c", 30, "30")] {
                try db.execute(
                    "INSERT INTO credentials(id, project_id, account_id, type, algorithm, created_at, expires_at, "
                        + "revoked_at) VALUES ('\(id)', 'prj_t', 'acc_1', 'direct', 'ecdsa-p256-sha256', \(created), "
                        + "999, \(revoked))")
            }
        }
        let store = try CoreStore(url: url)
        let grants = try await store.read { db in
            try db.rows("SELECT credential_id, type, revoked_at FROM access_grants ORDER BY seq").map {
                "\($0[0].text ?? "")|\($0[1].text ?? "")|\($0[2].int.map(String.init) ?? "-")"
            }
        }
        #expect(grants == ["0x04a|direct|-", "0x04b|direct|-", "0x04c|direct|30"])
        // The triggers keep new sign-ins and revocations in step.
        let after = try await store.write { db in
            try db.insertCredential(
                CredentialRecord(
                    id: "0x04d", projectId: "prj_t", accountId: "acc_1", type: .direct, algorithm: "ecdsa-p256-sha256",
                    metadataJSON: nil, createdAt: 40, expiresAt: 999, revokedAt: nil))
            try db.revokeCredential("0x04a", now: 50)
            return try db.accessPage(account: "acc_1", wallet: "", type: nil, afterSeq: 0, limit: 10).rows.map(
                \.credentialId)
        }
        #expect(after == ["0x04b", "0x04d"])
    }
}

/// Migration 10 on a ledger written by migration 9: executed session transfers keep their rows, gain no
/// allowance key, and the period's query reads them along the new index.
@Suite struct TransferGrantKeyMigrationTests {
    @Test func transfersExecutedBeforeItAreReadByTime() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "walletops-migration-\(UUID().uuidString).db")
        defer { try? FileManager.default.removeItem(at: url) }
        let v9 = try DatabaseQueue(path: url.path, migrations: Array(CoreSchema.migrations.prefix(9)))
        try await v9.write { db in
            try db.execute(
                "INSERT INTO projects(id, name, publishable_key, environment, created_at) "
                    + "VALUES ('prj_t', 't', 'pk_local_sdbx_t_k', 'development', 0)")
            try db.execute(
                "INSERT INTO accounts(id, project_id, issuer, subject, created_at) VALUES ('acc_1', 'prj_t', 'i', 's', 0)"
            )
            try db.execute(
                "INSERT INTO wallets(id, project_id, account_id, type, address, address_key, key_origin, sealed_key, "
                    + "created_at) VALUES ('wal_1', 'prj_t', 'acc_1', 'ethereum', '0xaa', 1, 'enclave', x'00', 0)")
            for (id, amount, executed) in [("txn_a", "5", 100), ("txn_b", "7", 200), ("txn_c", "11", 300)] {
                try db.execute(
                    "INSERT INTO transactions(id, project_id, wallet_id, session_id, credential_id, chain_id, "
                        + "to_address, amount, status, created_at, expires_at, executed_at) VALUES ('\(id)', 'prj_t', "
                        + "'wal_1', 'ses_1', '0xcred', 80002, '0x1111111111111111111111111111111111111111', '\(amount)', "
                        + "'executed', \(executed), 999, \(executed))")
            }
        }
        let store = try CoreStore(url: url)
        let (transfers, plan) = try await store.read { db in
            (
                try db.executedTransfers(session: "ses_1", chain: 80_002, since: 150, until: 301),
                try db.queryPlan(
                    "SELECT amount FROM transactions INDEXED BY transactions_executed_by_session WHERE session_id = ? "
                        + "AND status = 'executed' AND executed_at >= ? AND executed_at < ?",
                    [.text("ses_1"), .integer(0), .integer(1)])
            )
        }
        #expect(transfers.map(\.amount.decimalString) == ["7", "11"])
        #expect(transfers.allSatisfy { $0.grantKey == nil })
        #expect(plan.contains { $0.contains("transactions_executed_by_session") })
        let grants = try AccessRules.grants([
            .nativeTransfer(to: "0x1111111111111111111111111111111111111111", limit: "100")
        ])
        #expect(WaasService.usage(transfers, grants: grants)[grants[0].key]?.decimalString == "18")
    }
}
