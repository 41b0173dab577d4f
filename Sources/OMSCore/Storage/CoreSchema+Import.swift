import SQLiteKit

extension CoreSchema {
    /// Import (issue 5): HPKE recipient keys and the development enclave's attestation chain.
    static let importMigration = SQLiteDatabase.Migration(
        "3: import recipient keys, attestation chain",
        sql: """
            CREATE TABLE recipient_keys (
                id TEXT PRIMARY KEY,                 -- rk_<random>, the keyId of the wire
                project_id TEXT NOT NULL,
                credential TEXT NOT NULL,            -- the credential that asked; no other may use the key
                suite TEXT NOT NULL,                 -- e.g. p256-sha256-aes256gcm
                public_key BLOB NOT NULL,
                sealed_key BLOB NOT NULL,            -- HPKE private key, AES-256-GCM under the KEK, AAD = id
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,         -- created_at + 300: a recipient key lives 5 minutes
                consumed_at INTEGER                  -- set by the import that used it: single use
            );
            CREATE INDEX recipient_keys_by_expiry ON recipient_keys(expires_at);
            CREATE TABLE attestation_keys (
                role TEXT PRIMARY KEY,               -- root | intermediate | leaf
                certificate BLOB NOT NULL,           -- DER
                sealed_key BLOB NOT NULL,            -- P-384 scalar under the KEK, AAD = attestation:<SHA-256 of DER>
                not_after INTEGER NOT NULL,
                created_at INTEGER NOT NULL
            );
            """)
}
