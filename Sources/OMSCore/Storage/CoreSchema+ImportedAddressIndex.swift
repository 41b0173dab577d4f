import SQLiteKit

extension CoreSchema {
    /// Migration 6: the address index covers imported wallets only.
    ///
    /// The index exists for one check: an import must not store a key the project already holds. A key
    /// made in the enclave never leaves the core (no method exports one), so no import can carry it, and
    /// its wallet needs no entry. Creation then inserts into no random-order index at all: with every
    /// wallet indexed, each insert dirtied a random page of an index that outgrows the cache near a
    /// million wallets, and bulk creation slowed as the table grew (docs/core.md "Wallet storage").
    /// Lookups must state `key_origin = 'imported'` for SQLite to use a partial index.
    static let importedAddressIndexMigration = SQLiteDatabase.Migration(
        "6: the address key index covers imported wallets only",
        sql: """
            DROP INDEX wallets_by_address_key;
            CREATE INDEX wallets_by_imported_address_key ON wallets(address_key) WHERE key_origin = 'imported';
            """)
}
