import SQLiteKit

extension CoreSchema {
    /// Migration 6: imported wallets' address keys in two tiers, enclave-made wallets in neither.
    ///
    /// The address index serves one check: an import must not store a key the project already holds.
    /// - A key made in the enclave never leaves the core (no method exports one), so no import can carry
    ///   it: its wallet needs no entry, and bulk creation inserts into no random-order index at all.
    /// - An import's key lands on a random page of the index. Once the index outgrows what one group
    ///   commit covers (about a million wallets), nearly every insert dirtied a page of its own, written
    ///   to the WAL and copied back at the checkpoint, and imports slowed as the table grew. New keys
    ///   now go to `imported_address_keys_recent`, small enough that a group commit's inserts share its
    ///   pages, and the writer moves them to `imported_address_keys` in key order, a few thousand at a
    ///   time (``CoreStore``), so each settled page is written once per pass rather than once per key.
    ///   A lookup probes both (docs/core.md "Wallet storage").
    static let importedAddressIndexMigration = SQLiteDatabase.Migration(
        "6: imported wallets' address keys in a recent and a settled tier; enclave wallets unindexed",
        sql: """
            CREATE TABLE imported_address_keys (
                address_key INTEGER NOT NULL,        -- WalletAddressKey of an imported wallet
                seq INTEGER NOT NULL,                -- wallets.seq
                PRIMARY KEY (address_key, seq)
            ) WITHOUT ROWID;
            CREATE TABLE imported_address_keys_recent (
                address_key INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                PRIMARY KEY (address_key, seq)
            ) WITHOUT ROWID;
            INSERT INTO imported_address_keys(address_key, seq)
                SELECT address_key, seq FROM wallets WHERE key_origin = 'imported' ORDER BY address_key, seq;
            DROP INDEX wallets_by_address_key;
            """)
}

extension CoreSchema {
    /// Migration 7: the settled tier's version, for the connections that keep a filter of its keys
    /// (``SettledAddressKeyFilter``). Whatever writes `imported_address_keys` sets `version` to a new
    /// random value in the same transaction (``SQLiteDatabase/settleAddressKeys(from:limit:)`` is the
    /// only writer after migration 6), so a connection's filter of an earlier version is never trusted.
    static let settledAddressKeyVersionMigration = SQLiteDatabase.Migration(
        "7: a version of the settled address keys, changed by every transaction that settles keys",
        sql: """
            CREATE TABLE address_key_settlements (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                version INTEGER NOT NULL             -- random, new at every settle
            );
            INSERT INTO address_key_settlements(id, version) VALUES (1, 0);
            """)
}
