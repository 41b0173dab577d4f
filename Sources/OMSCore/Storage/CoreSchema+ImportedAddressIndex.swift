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
