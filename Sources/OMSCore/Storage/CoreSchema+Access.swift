import SQLiteKit

extension CoreSchema {
    /// Access grants (direct credentials and remote smart sessions), session usage and the local ledger.
    ///
    /// `access_grants.seq` is the page key of ListAccess: it never changes once given, so a cursor on it
    /// lists every grant exactly once even while grants are added or revoked between pages. Direct rows are
    /// made by triggers on `credentials`, so sign-in needs no knowledge of access lists; a revocation on
    /// `credentials` retires every grant of that credential in the same statement.
    static let accessMigration = SQLiteDatabase.Migration(
        "2: access grants, remote sessions, session usage, transfer ledger",
        sql: """
            CREATE TABLE access_grants (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, -- immutable page key of ListAccess
                account_id TEXT NOT NULL,            -- the wallet owner's account
                type TEXT NOT NULL,                  -- direct | remote
                credential_id TEXT NOT NULL REFERENCES credentials(id),
                session_id TEXT UNIQUE,              -- remote: ses_...
                wallet_id TEXT REFERENCES wallets(id), -- remote: the wallet the session acts for
                chain_id INTEGER,                    -- remote: the session's chain
                grants TEXT,                         -- remote: JSON array of wire grants
                created_at INTEGER NOT NULL,
                expires_at INTEGER,                  -- remote: capped at the remote credential's expiry
                revoked_at INTEGER                   -- permanent once set
            );
            CREATE INDEX access_grants_live ON access_grants(account_id, seq) WHERE revoked_at IS NULL;
            CREATE INDEX access_grants_by_credential ON access_grants(credential_id, seq);
            INSERT INTO access_grants(account_id, type, credential_id, created_at)
                SELECT account_id, 'direct', id, created_at FROM credentials
                WHERE type = 'direct' AND account_id IS NOT NULL ORDER BY created_at, id;
            UPDATE access_grants SET revoked_at = (SELECT revoked_at FROM credentials c WHERE c.id = credential_id);
            CREATE TRIGGER credentials_direct_grant AFTER INSERT ON credentials
            WHEN NEW.type = 'direct' AND NEW.account_id IS NOT NULL
            BEGIN
                INSERT INTO access_grants(account_id, type, credential_id, created_at)
                VALUES (NEW.account_id, 'direct', NEW.id, NEW.created_at);
            END;
            CREATE TRIGGER credentials_direct_grant_moved AFTER UPDATE OF account_id ON credentials
            WHEN NEW.type = 'direct' AND NEW.account_id IS NOT NULL AND NEW.account_id IS NOT OLD.account_id
            BEGIN
                INSERT INTO access_grants(account_id, type, credential_id, created_at)
                VALUES (NEW.account_id, 'direct', NEW.id, NEW.created_at);
            END;
            CREATE TRIGGER credentials_revoke_grants AFTER UPDATE OF revoked_at ON credentials
            WHEN NEW.revoked_at IS NOT NULL
            BEGIN
                UPDATE access_grants SET revoked_at = NEW.revoked_at
                WHERE credential_id = NEW.id AND revoked_at IS NULL;
            END;
            CREATE TABLE session_usage (
                session_id TEXT NOT NULL,
                chain_id INTEGER NOT NULL,
                grant_key TEXT NOT NULL,             -- native:<to> | erc20:<token>:<to or *>, lowercase
                used TEXT NOT NULL,                  -- exact decimal, 0...2^256-1
                PRIMARY KEY (session_id, chain_id, grant_key)
            );
            CREATE TABLE transactions (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,             -- txn_...
                project_id TEXT NOT NULL,
                wallet_id TEXT NOT NULL REFERENCES wallets(id),
                session_id TEXT NOT NULL,
                credential_id TEXT NOT NULL,         -- the remote credential that prepared it
                chain_id INTEGER NOT NULL,
                token TEXT,                          -- ERC-20 contract; NULL for a native transfer
                to_address TEXT NOT NULL,
                amount TEXT NOT NULL,                -- exact decimal base units
                status TEXT NOT NULL,                -- prepared | executed
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,         -- a prepared transfer not executed by then is void
                executed_at INTEGER,
                tx_nonce INTEGER,                    -- the wallet's EVM nonce on this chain, once executed
                tx_hash TEXT,
                raw_transaction TEXT                 -- signed EIP-1559 envelope, 0x hex (never broadcast)
            );
            CREATE INDEX transactions_by_session ON transactions(session_id, seq);
            CREATE UNIQUE INDEX transactions_by_nonce ON transactions(wallet_id, chain_id, tx_nonce)
                WHERE tx_nonce IS NOT NULL;
            """)

    /// Migration 9: transactions in the official SDK's shapes: an owner's own (no session: `session_id`
    /// is ''), contract calls other than ERC-20 transfers (their call data), Solana transfers (the
    /// cluster named), and the fee mode. Columns only: existing rows read as native EVM transfers.
    static let ownerTransactionsMigration = SQLiteDatabase.Migration(
        "9: owner transactions, contract calls and Solana transfers in the ledger",
        sql: """
            ALTER TABLE transactions ADD COLUMN call_data TEXT;  -- 0x call data of a call other than ERC-20 transfer
            ALTER TABLE transactions ADD COLUMN mode TEXT NOT NULL DEFAULT 'native';  -- native | relayer
            ALTER TABLE transactions ADD COLUMN network TEXT;    -- the Solana cluster as the client named it
            """)

    /// Migration 10: usage within a period (GetSessionUsage `since`/`until`, docs/protocol.md). The ledger
    /// already keeps each transfer's `executed_at`; what it lacked is the allowance a session's transfer was
    /// paid from, since a re-authorization may change the grants later. Rows executed before this
    /// migration keep NULL and are matched against the session's grants when read.
    static let transferGrantKeyMigration = SQLiteDatabase.Migration(
        "10: the allowance key each session transfer spent, and executed transfers by session and time",
        sql: """
            ALTER TABLE transactions ADD COLUMN grant_key TEXT;  -- native:<to> | erc20:<token>:<to or *>; NULL: owner's, or before 10
            CREATE INDEX transactions_executed_by_session ON transactions(session_id, executed_at)
                WHERE status = 'executed';
            """)

    /// Revoked grants for the owner's reports (ListAccess `includeRevoked`, docs/protocol.md): the live
    /// partial index cannot find them, so a full index on (account, seq) keeps those pages index-ordered.
    static let revokedAccessMigration = SQLiteDatabase.Migration(
        "4: index every access grant by account, for listing revoked grants",
        sql: """
            CREATE INDEX access_grants_by_account ON access_grants(account_id, seq);
            """)
}
