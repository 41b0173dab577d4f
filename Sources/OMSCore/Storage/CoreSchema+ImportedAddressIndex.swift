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
    ///   now went to `imported_address_keys_recent`, small enough that a group commit's inserts shared its
    ///   pages, and the writer moved them to `imported_address_keys` in key order, a few thousand at a
    ///   time (``CoreStore``), so each settled page is written once per pass rather than once per key.
    ///   A lookup probed both (docs/core.md "Wallet storage"). Migration 8 moved the recent tier to memory.
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
    /// random value in the same transaction (``SQLiteDatabase/settleAddressKeys(limit:threshold:)`` is the
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

extension CoreSchema {
    /// Migration 8: the recent tier leaves the database for the connection's memory.
    ///
    /// The recent tier was a random-order table of about 32,768 keys: each import's key was a B-tree insert
    /// into it, each group commit rewrote nearly all of its few hundred pages to the WAL, and each key was
    /// deleted again when it settled. The wallets table already holds every wallet's address key in `seq`
    /// order, so the recent keys are now those of the imported wallets past a `seq` watermark, and each
    /// connection indexes them in memory (``RecentAddressKeys``, docs/core.md "Wallet storage"):
    /// - an imported wallet with `seq <= settled_through` has its key in `imported_address_keys`;
    /// - one with `settled_through < seq <= pass_through` has it there if `address_key < pass_cursor` (a
    ///   settling pass moves the keys of that `seq` range in key order, a chunk per transaction);
    /// - any other is recent: found through the memory index, which every connection catches up from
    ///   the wallets table inside its transaction.
    /// The recent table's keys move into the settled tier here, and the version changes with them.
    static let recentAddressKeysInMemoryMigration = SQLiteDatabase.Migration(
        "8: the recent tier of imported address keys is the wallets past a watermark, indexed in memory",
        sql: """
            INSERT OR IGNORE INTO imported_address_keys(address_key, seq)
                SELECT address_key, seq FROM imported_address_keys_recent ORDER BY address_key, seq;
            DROP TABLE imported_address_keys_recent;
            ALTER TABLE address_key_settlements ADD COLUMN settled_through INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE address_key_settlements ADD COLUMN pass_through INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE address_key_settlements ADD COLUMN pass_cursor INTEGER NOT NULL DEFAULT 0;
            UPDATE address_key_settlements SET
                version = random(),
                settled_through = (SELECT coalesce(max(seq), 0) FROM wallets),
                pass_through = (SELECT coalesce(max(seq), 0) FROM wallets)
                WHERE id = 1;
            """)
}
