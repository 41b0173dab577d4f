import SQLiteKit

/// The core's tables, versioned with `user_version` migrations. Times are Unix seconds (INTEGER);
/// no column ever holds a plaintext private key.
enum CoreSchema {
    static let migrations: [SQLiteDatabase.Migration] = [
        SQLiteDatabase.Migration(
            "1: projects, issuers, accounts, credentials, wallets, signing keys",
            sql: """
                CREATE TABLE settings (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );
                CREATE TABLE projects (
                    id TEXT PRIMARY KEY,                 -- prj_<name>
                    name TEXT NOT NULL UNIQUE,
                    publishable_key TEXT NOT NULL UNIQUE,
                    environment TEXT NOT NULL,           -- development | staging | production
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE trusted_issuers (
                    project_id TEXT NOT NULL REFERENCES projects(id),
                    issuer TEXT NOT NULL,
                    audience TEXT NOT NULL,
                    jwks TEXT NOT NULL,                  -- the issuer's public JWKS (JSON)
                    added_at INTEGER NOT NULL,
                    PRIMARY KEY (project_id, issuer, audience)
                );
                CREATE TABLE accounts (
                    id TEXT PRIMARY KEY,
                    project_id TEXT NOT NULL REFERENCES projects(id),
                    issuer TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    email TEXT,
                    created_at INTEGER NOT NULL,
                    UNIQUE (project_id, issuer, subject)
                );
                CREATE TABLE verifiers (
                    id TEXT PRIMARY KEY,
                    project_id TEXT NOT NULL,
                    credential TEXT NOT NULL,            -- the credential that committed it
                    identity_type TEXT NOT NULL,
                    auth_mode TEXT NOT NULL,
                    handle TEXT NOT NULL,
                    metadata TEXT NOT NULL,              -- JSON
                    challenge TEXT NOT NULL,
                    code_hash BLOB,                      -- SHA-256 of the expected OTP answer, never the code
                    attempts INTEGER NOT NULL DEFAULT 0,
                    expires_at INTEGER NOT NULL,
                    consumed_at INTEGER
                );
                CREATE INDEX verifiers_by_handle ON verifiers(project_id, handle, expires_at);
                CREATE TABLE credentials (
                    id TEXT PRIMARY KEY,                 -- the cred of the signature header
                    project_id TEXT NOT NULL,
                    account_id TEXT REFERENCES accounts(id),
                    type TEXT NOT NULL,                  -- direct | remote
                    algorithm TEXT NOT NULL,
                    metadata TEXT,                       -- JSON, remote credentials
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    revoked_at INTEGER
                );
                CREATE INDEX credentials_by_account ON credentials(account_id);
                CREATE TABLE nonces (
                    credential TEXT PRIMARY KEY,         -- every signer, registered or not yet
                    last_nonce INTEGER NOT NULL
                );
                CREATE TABLE wallets (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, -- page order
                    id TEXT NOT NULL UNIQUE,
                    project_id TEXT NOT NULL,
                    account_id TEXT NOT NULL REFERENCES accounts(id),
                    type TEXT NOT NULL,                  -- ethereum | solana
                    address TEXT NOT NULL,               -- lowercase hex (EVM) or base58 (Solana)
                    reference TEXT,
                    key_origin TEXT NOT NULL,            -- enclave | imported
                    sealed_key BLOB NOT NULL,            -- AES-256-GCM under the KEK, AAD = id
                    created_at INTEGER NOT NULL,
                    UNIQUE (project_id, address)
                );
                CREATE INDEX wallets_by_account ON wallets(account_id, seq);
                CREATE INDEX wallets_by_reference ON wallets(account_id, reference);
                CREATE TABLE signing_keys (
                    kid TEXT PRIMARY KEY,
                    sealed_key BLOB NOT NULL,            -- P-256 scalar sealed under the KEK, AAD = kid
                    public_jwk TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    retired_at INTEGER                   -- replaced by a newer key; still published once
                );
                """),
        accessMigration,
        importMigration,
        revokedAccessMigration,
        addressKeyMigration,
        importedAddressIndexMigration,
        settledAddressKeyVersionMigration,
        recentAddressKeysInMemoryMigration,
        ownerTransactionsMigration,
        transferGrantKeyMigration,
    ]
}
