import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

/// The SQL of access lists, named so tests can check its query plan.
enum AccessSQL {
    /// The page query of ListAccess: live grants of an account in `seq` order, read along the partial index
    /// `access_grants_live` (no sort, no scan of other accounts, no revoked row read), with the credential
    /// joined by primary key. `INDEXED BY` keeps the planner off `access_grants_by_account`, which it would
    /// otherwise rate the same.
    static let page = """
        SELECT g.seq, g.type, g.credential_id, g.session_id, g.grants, coalesce(g.expires_at, c.expires_at), c.metadata
        FROM access_grants g INDEXED BY access_grants_live JOIN credentials c ON c.id = g.credential_id
        WHERE g.account_id = ?1 AND g.revoked_at IS NULL AND g.seq > ?2
          AND ((g.type = 'direct' AND c.account_id = ?1) OR (g.type = 'remote' AND g.wallet_id = ?3))
          AND c.revoked_at IS NULL AND (?4 IS NULL OR g.type = ?4)
        ORDER BY g.seq LIMIT ?5
        """

    /// The page query of ListAccess with `includeRevoked`: every grant of the account, live or revoked, in
    /// `seq` order along `access_grants_by_account`, with when it was revoked (the grant's own revocation,
    /// else its credential's).
    static let pageWithRevoked = """
        SELECT g.seq, g.type, g.credential_id, g.session_id, g.grants, coalesce(g.expires_at, c.expires_at), c.metadata,
          coalesce(g.revoked_at, c.revoked_at)
        FROM access_grants g INDEXED BY access_grants_by_account JOIN credentials c ON c.id = g.credential_id
        WHERE g.account_id = ?1 AND g.seq > ?2
          AND ((g.type = 'direct' AND c.account_id = ?1) OR (g.type = 'remote' AND g.wallet_id = ?3))
          AND (?4 IS NULL OR g.type = ?4)
        ORDER BY g.seq LIMIT ?5
        """
}

extension SQLiteDatabase {
    // MARK: Access lists

    /// One page of a wallet's access grants after `afterSeq`; one extra row tells whether more follow.
    /// Live grants only, unless `includeRevoked` (then each revoked row carries its `revokedAt`).
    func accessPage(
        account: String, wallet: String, type: CredentialType?, afterSeq: Int64, limit: Int,
        includeRevoked: Bool = false
    ) throws -> (rows: [AccessRow], more: Bool) {
        let rows = try rows(
            includeRevoked ? AccessSQL.pageWithRevoked : AccessSQL.page,
            [
                .text(account), .integer(afterSeq), .text(wallet), SQLiteValue(type?.rawValue),
                .integer(Int64(limit + 1)),
            ])
        let decoder = JSONDecoder()
        // A remote credential's sessions share its metadata: decode it once per page, not once per row.
        var metadata: [String: CredentialMetadata] = [:]
        let records = rows.prefix(limit).map { row in
            let credentialId = row[2].text ?? ""
            let isRemote = row[1].text == CredentialType.remote.rawValue
            if isRemote, metadata[credentialId] == nil, let json = row[6].text {
                metadata[credentialId] = try? decoder.decode(CredentialMetadata.self, from: Data(json.utf8))
            }
            return AccessRow(
                seq: row[0].int ?? 0, type: CredentialType(wire: row[1].text ?? ""), credentialId: credentialId,
                sessionId: row[3].text,
                grants: row[4].text.flatMap { try? decoder.decode([Grant].self, from: Data($0.utf8)) },
                expiresAt: row[5].int ?? 0, metadata: isRemote ? metadata[credentialId] : nil,
                revokedAt: row.count > 7 ? row[7].int : nil)
        }
        return (Array(records), rows.count > limit)
    }

    /// Revokes a credential (permanently); the trigger retires its grants and sessions with it.
    func revokeCredential(_ id: String, now: Int64) throws {
        try execute(
            "UPDATE credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.integer(now), .text(id)])
    }

    // MARK: Sessions

    private static let sessionColumns =
        "g.seq, g.session_id, g.account_id, g.credential_id, g.wallet_id, g.chain_id, g.grants, g.expires_at, g.revoked_at"

    private static func sessionRecord(_ row: [SQLiteValue]) -> SessionRecord {
        SessionRecord(
            seq: row[0].int ?? 0, id: row[1].text ?? "", accountId: row[2].text ?? "", credentialId: row[3].text ?? "",
            walletId: row[4].text ?? "", chainId: UInt64(row[5].int ?? 0),
            grants: (try? JSONDecoder().decode([Grant].self, from: Data((row[6].text ?? "[]").utf8))) ?? [],
            expiresAt: row[7].int ?? 0, revokedAt: row[8].int)
    }

    /// A session of this project, revoked or not.
    func session(_ id: String, project: String) throws -> SessionRecord? {
        try rows(
            "SELECT \(Self.sessionColumns) FROM access_grants g JOIN credentials c ON c.id = g.credential_id "
                + "WHERE g.session_id = ? AND g.type = 'remote' AND c.project_id = ?", [.text(id), .text(project)]
        ).first.map(Self.sessionRecord)
    }

    func insertSession(_ session: SessionRecord, now: Int64) throws -> SessionRecord {
        try execute(
            "INSERT INTO access_grants(account_id, type, credential_id, session_id, wallet_id, chain_id, grants, "
                + "created_at, expires_at) VALUES (?, 'remote', ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(session.accountId), .text(session.credentialId), .text(session.id), .text(session.walletId),
                .integer(Int64(session.chainId)), .text(try Self.grantsJSON(session.grants)), .integer(now),
                .integer(session.expiresAt),
            ])
        var stored = session
        stored.seq = lastInsertRowID
        return stored
    }

    /// Re-authorization: new grants, chain and expiry; the page position (`seq`) stays.
    func updateSession(_ session: SessionRecord) throws {
        try execute(
            "UPDATE access_grants SET chain_id = ?, grants = ?, expires_at = ? WHERE session_id = ?",
            [
                .integer(Int64(session.chainId)), .text(try Self.grantsJSON(session.grants)),
                .integer(session.expiresAt), .text(session.id),
            ])
    }

    func revokeSession(_ id: String, now: Int64) throws {
        try execute(
            "UPDATE access_grants SET revoked_at = ? WHERE session_id = ? AND revoked_at IS NULL",
            [.integer(now), .text(id)])
    }

    /// Unrevoked sessions in `seq` order: of one remote credential, or on the wallets of one account.
    func sessions(credential: String?, account: String?, afterSeq: Int64, limit: Int) throws
        -> (sessions: [SessionRecord], more: Bool)
    {
        let filter = credential != nil ? "g.credential_id = ?" : "g.account_id = ?"
        let rows = try rows(
            "SELECT \(Self.sessionColumns) FROM access_grants g WHERE \(filter) AND g.type = 'remote' "
                + "AND g.revoked_at IS NULL AND g.seq > ? ORDER BY g.seq LIMIT ?",
            [.text(credential ?? account ?? ""), .integer(afterSeq), .integer(Int64(limit + 1))])
        return (rows.prefix(limit).map(Self.sessionRecord), rows.count > limit)
    }

    /// The owner's report listing: the account's sessions in `seq` order along `access_grants_by_account`,
    /// revoked ones too when `includeRevoked` (revoked: the grant's own revocation, else its credential's),
    /// each with its credential's metadata and its wallet's address and reference (primary-key joins).
    func accountSessions(account: String, includeRevoked: Bool, afterSeq: Int64, limit: Int) throws
        -> (sessions: [RemoteSession], seqs: [Int64], more: Bool)
    {
        let rows = try rows(
            "SELECT g.seq, g.session_id, g.account_id, g.credential_id, g.wallet_id, g.chain_id, g.grants, "
                + "g.expires_at, coalesce(g.revoked_at, c.revoked_at), c.metadata, w.address, w.reference "
                + "FROM access_grants g INDEXED BY access_grants_by_account "
                + "JOIN credentials c ON c.id = g.credential_id JOIN wallets w ON w.id = g.wallet_id "
                + "WHERE g.account_id = ?1 AND g.type = 'remote' AND g.seq > ?2 "
                + "AND (?3 OR coalesce(g.revoked_at, c.revoked_at) IS NULL) ORDER BY g.seq LIMIT ?4",
            [.text(account), .integer(afterSeq), .integer(includeRevoked ? 1 : 0), .integer(Int64(limit + 1))])
        let decoder = JSONDecoder()
        var metadata: [String: CredentialMetadata] = [:]
        let page = rows.prefix(limit)
        let sessions = page.map { row in
            let credential = row[3].text ?? ""
            if metadata[credential] == nil, let json = row[9].text {
                metadata[credential] = try? decoder.decode(CredentialMetadata.self, from: Data(json.utf8))
            }
            var session = Self.sessionRecord(Array(row.prefix(9))).wire
            (session.metadata, session.walletAddress, session.walletReference) = (
                metadata[credential], row[10].text, row[11].text
            )
            return session
        }
        return (sessions, page.map { $0[0].int ?? 0 }, rows.count > limit)
    }

    static func grantsJSON(_ grants: [Grant]) throws -> String {
        String(decoding: try WaasClient.encodeBody(grants), as: UTF8.self)
    }

    // MARK: Usage

    /// What a session has spent on a chain, per grant key.
    func usage(session: String, chain: UInt64) throws -> [String: TokenAmount] {
        var used: [String: TokenAmount] = [:]
        for row in try rows(
            "SELECT grant_key, used FROM session_usage WHERE session_id = ? AND chain_id = ?",
            [.text(session), .integer(Int64(chain))])
        {
            guard let key = row[0].text, let amount = row[1].text.flatMap(TokenAmount.init(canonical:)) else {
                throw WaasError(.dataIntegrityError, "session_usage holds a malformed amount for \(session)")
            }
            used[key] = amount
        }
        return used
    }

    func setUsage(session: String, chain: UInt64, key: String, used: TokenAmount) throws {
        try execute(
            "INSERT INTO session_usage(session_id, chain_id, grant_key, used) VALUES (?, ?, ?, ?) "
                + "ON CONFLICT(session_id, chain_id, grant_key) DO UPDATE SET used = excluded.used",
            [.text(session), .integer(Int64(chain)), .text(key), .text(used.decimalString)])
    }

    /// A session's executed transfers on `chain` with `since <= executed_at < until`, in execution order,
    /// read along `transactions_executed_by_session`.
    func executedTransfers(session: String, chain: UInt64, since: Int64, until: Int64) throws
        -> [ExecutedTransfer]
    {
        try rows(
            "SELECT token, to_address, amount, grant_key FROM transactions "
                + "INDEXED BY transactions_executed_by_session WHERE session_id = ? AND status = 'executed' "
                + "AND executed_at >= ? AND executed_at < ? AND chain_id = ? ORDER BY executed_at, seq",
            [.text(session), .integer(since), .integer(until), .integer(Int64(chain))]
        ).map { row in
            guard let amount = row[2].text.flatMap(TokenAmount.init(canonical:)) else {
                throw WaasError(.dataIntegrityError, "transactions holds a malformed amount for \(session)")
            }
            return ExecutedTransfer(token: row[0].text, to: row[1].text ?? "", amount: amount, grantKey: row[3].text)
        }
    }

    // MARK: Ledger

    func insertTransfer(_ transfer: TransferRecord, project: String, now: Int64) throws {
        try execute(
            "INSERT INTO transactions(id, project_id, wallet_id, session_id, credential_id, chain_id, token, "
                + "to_address, amount, status, created_at, expires_at, call_data, mode, network) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(transfer.id), .text(project), .text(transfer.walletId), .text(transfer.sessionId),
                .text(transfer.credentialId), .integer(Int64(transfer.chainId)), SQLiteValue(transfer.token),
                .text(transfer.to), .text(transfer.amount.decimalString), .text(transfer.status), .integer(now),
                .integer(transfer.expiresAt), SQLiteValue(transfer.callData), .text(transfer.mode.rawValue),
                SQLiteValue(transfer.network),
            ])
    }

    func transfer(_ id: String, project: String) throws -> TransferRecord? {
        try rows(
            "SELECT id, wallet_id, session_id, credential_id, chain_id, token, to_address, amount, status, expires_at, "
                + "tx_hash, raw_transaction, call_data, mode, network FROM transactions WHERE id = ? AND project_id = ?",
            [.text(id), .text(project)]
        ).first.map { row in
            TransferRecord(
                id: row[0].text ?? "", walletId: row[1].text ?? "", sessionId: row[2].text ?? "",
                credentialId: row[3].text ?? "", chainId: UInt64(row[4].int ?? 0), token: row[5].text,
                to: row[6].text ?? "", amount: row[7].text.flatMap(TokenAmount.init(canonical:)) ?? .zero,
                status: row[8].text ?? "", expiresAt: row[9].int ?? 0, txHash: row[10].text,
                rawTransaction: row[11].text, callData: row[12].text, mode: TransactionMode(wire: row[13].text ?? ""),
                network: row[14].text)
        }
    }

    /// The next EVM nonce of a wallet on a chain, as far as this ledger knows (no chain is reached).
    func nextTransactionNonce(wallet: String, chain: UInt64) throws -> UInt64 {
        UInt64(
            try scalarInt(
                "SELECT coalesce(max(tx_nonce) + 1, 0) FROM transactions WHERE wallet_id = ? AND chain_id = ? "
                    + "AND tx_nonce IS NOT NULL", [.text(wallet), .integer(Int64(chain))]) ?? 0)
    }

    /// Records the signed transaction; `grantKey` is the session allowance it spent (nil for the owner's).
    func markExecuted(
        _ id: String, nonce: UInt64, txHash: String, raw: String, grantKey: String? = nil, now: Int64
    ) throws {
        try execute(
            "UPDATE transactions SET status = 'executed', executed_at = ?, tx_nonce = ?, tx_hash = ?, "
                + "raw_transaction = ?, grant_key = ? WHERE id = ? AND status = 'prepared'",
            [
                .integer(now), .integer(Int64(nonce)), .text(txHash), .text(raw), SQLiteValue(grantKey), .text(id),
            ])
        guard changes == 1 else { throw WaasError(.dataIntegrityError, "transaction \(id) was not prepared") }
    }

    // MARK: Inspection (diagnostics and tests)

    /// Every row of `table` as text, in rowid order: a before/after picture for checking that a refused
    /// request changed nothing.
    func dump(table: String) throws -> [String] {
        guard table.allSatisfy({ $0.isLetter || $0 == "_" }) else { return [] }
        return try rows("SELECT * FROM \(table) ORDER BY rowid").map { row in
            row.map { value in
                switch value {
                case .null: "NULL"
                case .integer(let int): String(int)
                case .real(let real): String(real)
                case .text(let text): "'\(text)'"
                case .blob(let blob): "x'\(Base16.encode(blob))'"
                }
            }.joined(separator: "|")
        }
    }

    /// SQLite's plan for `sql` (the `detail` column of EXPLAIN QUERY PLAN).
    func queryPlan(_ sql: String, _ values: [SQLiteValue]) throws -> [String] {
        try rows("EXPLAIN QUERY PLAN " + sql, values).compactMap { $0.last?.text }
    }
}
