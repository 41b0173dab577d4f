import SQLiteKit
import WalletCrypto

/// A wallet's address key: the first 8 bytes of SHA-256(project id, 0x00, address), as a signed
/// integer. Wallets are found by address through an index on this key, then compared exactly.
///
/// Why not a unique index on (project_id, address): addresses are random, so every insert lands on a
/// random page of that index; with entries of about 80 bytes the index had about 50 per 4 KiB page
/// and each batch of 1000 inserts dirtied nearly a page per wallet, which SQLite writes to the WAL and
/// copies back at the checkpoint. An 8-byte key makes the index several times smaller (fewer pages,
/// fewer of them dirtied, more of it in the cache), and inserts faster (docs/core.md "Wallet storage").
/// Uniqueness of (project, address) is checked by the insert itself (CoreStore+Wallets), inside the
/// writer's transaction; a key collision only makes two wallets share an index entry.
enum WalletAddressKey {
    static func of(project: String, address: String) -> Int64 {
        // One stack buffer for input and digest and one hash call, no arrays: this runs for every wallet
        // inserted or looked up by address.
        var project = project
        var address = address
        return project.withUTF8 { project in
            address.withUTF8 { address in
                let count = project.count + 1 + address.count
                return withUnsafeTemporaryAllocation(byteCount: count + 32, alignment: 8) { buffer in
                    let base = buffer.baseAddress!
                    UnsafeMutableRawBufferPointer(rebasing: buffer[..<project.count]).copyMemory(
                        from: UnsafeRawBufferPointer(project))
                    buffer[project.count] = 0
                    UnsafeMutableRawBufferPointer(rebasing: buffer[(project.count + 1)..<count]).copyMemory(
                        from: UnsafeRawBufferPointer(address))
                    let digest = base + count
                    SHA256.hash(UnsafeRawBufferPointer(start: base, count: count), into: digest)
                    // The digest's first 8 bytes, big-endian.
                    return Int64(bitPattern: UInt64(bigEndian: digest.loadUnaligned(as: UInt64.self)))
                }
            }
        }
    }
}

extension CoreSchema {
    /// Migration 5: the wallets table rebuilt without UNIQUE (project_id, address), with `address_key`
    /// and its index (``WalletAddressKey``). Rows keep their `seq`, and the AUTOINCREMENT counter its value.
    static let addressKeyMigration = SQLiteDatabase.Migration(
        "5: wallets found by a 64-bit address key instead of a unique (project, address) index",
        sql: """
            CREATE TABLE wallets_rebuilt (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, -- page order
                id TEXT NOT NULL UNIQUE,
                project_id TEXT NOT NULL,
                account_id TEXT NOT NULL REFERENCES accounts(id),
                type TEXT NOT NULL,                  -- ethereum | solana
                address TEXT NOT NULL,               -- lowercase hex (EVM) or base58 (Solana)
                address_key INTEGER NOT NULL,        -- WalletAddressKey; (project_id, address) unique by the insert
                reference TEXT,
                key_origin TEXT NOT NULL,            -- enclave | imported
                sealed_key BLOB NOT NULL,            -- AES-256-GCM under the KEK, AAD = id
                created_at INTEGER NOT NULL
            );
            INSERT INTO wallets_rebuilt(seq, id, project_id, account_id, type, address, address_key, reference,
                key_origin, sealed_key, created_at)
                SELECT seq, id, project_id, account_id, type, address, 0, reference, key_origin, sealed_key, created_at
                FROM wallets ORDER BY seq;
            DELETE FROM sqlite_sequence WHERE name = 'wallets_rebuilt';
            INSERT INTO sqlite_sequence(name, seq) SELECT 'wallets_rebuilt', seq FROM sqlite_sequence WHERE name = 'wallets';
            """,
        rebuildsTables: true,
        body: { db in
            // The keys, row by row (SQLite has no SHA-256), streamed: memory does not grow with the table.
            let read = try db.prepare("SELECT seq, project_id, address FROM wallets ORDER BY seq")
            let write = try db.prepare("UPDATE wallets_rebuilt SET address_key = ? WHERE seq = ?")
            while try read.step() {
                try write.bind(
                    WalletAddressKey.of(project: read.string(at: 1) ?? "", address: read.string(at: 2) ?? ""), at: 1)
                try write.bind(read.int64(at: 0), at: 2)
                _ = try write.step()
                write.reset()
            }
            read.reset()  // a pending statement on the table would keep DROP TABLE from running
            try db.execute(
                """
                DROP TABLE wallets;
                ALTER TABLE wallets_rebuilt RENAME TO wallets;
                CREATE INDEX wallets_by_account ON wallets(account_id, seq);
                CREATE INDEX wallets_by_reference ON wallets(account_id, reference);
                CREATE INDEX wallets_by_address_key ON wallets(address_key);
                """)
        })
}
