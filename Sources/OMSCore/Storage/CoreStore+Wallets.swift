import OMSProtocol
import SQLiteKit

// Wallet rows (bulk creation and import above all): one prepared statement per shape, bound column by column
// and reused for every row of a batch (no per-row SQL text or value arrays).
extension SQLiteDatabase {
    private static let walletByReferenceSQL =
        "SELECT \(walletColumns) FROM wallets WHERE account_id = ? AND reference = ? ORDER BY seq LIMIT 1"

    /// The first wallet (lowest `seq`) of `account` with `reference`, through the index
    /// `wallets_by_reference(account_id, reference)`.
    func wallet(account: String, reference: String) throws -> WalletRecord? {
        let statement = try cachedStatement(Self.walletByReferenceSQL)
        defer { statement.reset() }
        try statement.bind(account, at: 1)
        try statement.bind(reference, at: 2)
        guard try statement.step() else { return nil }
        return Self.walletRecord(statement)
    }

    /// The wallets `account` already has among `references`, by position.
    func wallets(account: String, references: [String]) throws -> [Int: WalletRecord] {
        var found: [Int: WalletRecord] = [:]
        for (index, reference) in references.enumerated() {
            if let wallet = try wallet(account: account, reference: reference) { found[index] = wallet }
        }
        return found
    }

    private static let insertWalletSQL = StatementSQL(insertWalletsSQL(rows: 1))

    private static let importedWalletByAddressSQL =
        "SELECT \(walletColumns) FROM wallets WHERE seq IN ("
        + "SELECT seq FROM imported_address_keys_recent WHERE address_key = ?1 "
        + "UNION ALL SELECT seq FROM imported_address_keys WHERE address_key = ?1) "
        + "AND project_id = ?2 AND address = ?3 ORDER BY seq LIMIT 1"

    /// The imported wallet of `project` that holds `address`, through both tiers of imported address
    /// keys. Enclave-made wallets are not indexed: their keys never leave the core, so no import can
    /// carry one (migration 6, docs/core.md "Wallet storage").
    func importedWallet(address: String, project: String) throws -> WalletRecord? {
        try importedWallet(
            address: address, project: project, key: WalletAddressKey.of(project: project, address: address))
    }

    /// Whether the recent tier holds `key` (a primary-key probe, no table row read), and the settled
    /// tier's version, in one statement: the version says whether this connection's filter of the
    /// settled keys is up to date (``SettledAddressKeyFilter``).
    private static let recentAddressKeyProbeSQL = StatementSQL(
        "SELECT EXISTS (SELECT 1 FROM imported_address_keys_recent WHERE address_key = ?1), "
            + "(SELECT version FROM address_key_settlements WHERE id = 1)")

    /// Whether the settled tier holds `key`: a primary-key probe.
    private static let settledAddressKeyProbeSQL = StatementSQL(
        "SELECT EXISTS (SELECT 1 FROM imported_address_keys WHERE address_key = ?1)")

    /// Whether either tier holds `key`. Nearly every key an import stores is new: the recent tier is
    /// small and cached, and the settled tier is asked only when this connection's filter of its keys
    /// may hold `key` (0.1-2 % of new keys) or is out of date. Existence probes only: the wallet row,
    /// through ``importedWalletByAddressSQL`` (whose `seq IN (...)` builds a temporary index each time),
    /// is read on a hit alone.
    func importedAddressKeyIsHeld(_ key: Int64) throws -> Bool {
        let probe = try cachedStatement(Self.recentAddressKeyProbeSQL)
        try probe.bind(key, at: 1)
        let row = try probe.step()
        let recent = !row || probe.int64(at: 0) != 0
        let version = row ? probe.int64(at: 1) : 0
        probe.reset()
        if recent { return true }
        guard try settledAddressKeyFilter.mayHold(key, current: version, db: self) else { return false }
        let settled = try cachedStatement(Self.settledAddressKeyProbeSQL)
        defer { settled.reset() }
        try settled.bind(key, at: 1)
        return try settled.step() && settled.int64(at: 0) != 0
    }

    /// ``importedWallet(address:project:)`` with the address key computed by the caller
    /// (`WalletAddressKey.of(project:address:)`).
    func importedWallet(address: String, project: String, key: Int64) throws -> WalletRecord? {
        // The key is a hash of project and address: a hit may be another address's, so read the wallet.
        guard try importedAddressKeyIsHeld(key) else { return nil }
        let statement = try cachedStatement(Self.importedWalletByAddressSQL)
        defer { statement.reset() }
        try statement.bind(key, at: 1)
        try statement.bind(project, at: 2)
        try statement.bind(address, at: 3)
        guard try statement.step() else { return nil }
        return Self.walletRecord(statement)
    }

    private static let insertRecentAddressKeySQL = StatementSQL(
        "INSERT INTO imported_address_keys_recent(address_key, seq) VALUES (?, ?)")

    /// The insert of a full chunk, found by identity (its text is long to hash on every chunk).
    private static let insertWalletChunkSQL = StatementSQL(insertWalletsSQL(rows: insertChunk))

    /// The statement of a chunk of `rows`: the cached full-chunk one, or one built for a batch's last, shorter chunk.
    private func chunkStatement(full: StatementSQL, rows: Int, sql: (Int) -> String) throws -> Statement {
        try rows == Self.insertChunk ? cachedStatement(full) : cachedStatement(sql(rows))
    }

    /// Rows per multi-row `INSERT` of ``insertEnclaveWalletsUnlessReferenced(_:project:now:)`` and
    /// ``insertImportedWallets(_:project:now:)``, and keys per recent-tier probe of the latter. In C
    /// (`bench/floor/address_index.c`, 100,000 rows, no address index) one row per statement took 8.85 us
    /// per row, 20 per statement 6.74 us and 100 per statement 5.28 us (`address_index 1 R 2 100000`).
    static let insertChunk = 64

    /// Binds `wallet`'s ten columns as row `row` (0-based) of an insert built by ``insertWalletsSQL(rows:)``.
    private static func bind(
        _ wallet: WalletRecord, project: String, addressKey: Int64, sealedKey: [UInt8], now: Int64,
        to statement: Statement, row: Int
    ) throws {
        let base = Int32(row * 10)
        try statement.bind(wallet.id, at: base + 1)
        try statement.bind(project, at: base + 2)
        try statement.bind(wallet.accountId, at: base + 3)
        try statement.bind(wallet.type.rawValue, at: base + 4)
        try statement.bind(wallet.address, at: base + 5)
        try statement.bind(addressKey, at: base + 6)
        try statement.bind(wallet.reference, at: base + 7)
        try statement.bind(wallet.keyOrigin.rawValue, at: base + 8)
        try statement.bind(sealedKey, at: base + 9)
        try statement.bind(now, at: base + 10)
    }

    private static func insertWalletsSQL(rows: Int) -> String {
        "INSERT INTO wallets(id, project_id, account_id, type, address, address_key, reference, key_origin, "
            + "sealed_key, created_at) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// Inserts the enclave-made wallets of `wallets` whose account has no wallet with their reference,
    /// from the store or from an earlier entry of `wallets`; returns the stored rows by position (nil: the
    /// reference was taken). Rows go in by multi-row `INSERT`s of ``insertChunk``; within one statement
    /// SQLite gives consecutive rowids, so each row's `seq` follows from the last one. Enclave keys are
    /// new, so no address is looked up (migration 6). The references are looked up first, one by one:
    /// an `INSERT ... SELECT ... WHERE NOT EXISTS` would fold that in, but its statement journal copied
    /// every page it touched (about seven page writes per wallet, with the journal in a file then).
    func insertEnclaveWalletsUnlessReferenced(
        _ wallets: [(record: WalletRecord, sealedKey: [UInt8])], project: String, now: Int64
    ) throws -> [WalletRecord?] {
        var stored = [WalletRecord?](repeating: nil, count: wallets.count)
        var kept: [Int] = []
        kept.reserveCapacity(wallets.count)
        var references = Set<String>()
        for (index, wallet) in wallets.enumerated() {
            precondition(wallet.record.keyOrigin == .enclave, "only enclave-made wallets skip the address check")
            if let reference = wallet.record.reference {
                if references.contains(reference) { continue }
                if try self.wallet(account: wallet.record.accountId, reference: reference) != nil { continue }
                references.insert(reference)
            }
            kept.append(index)
        }
        var start = 0
        while start < kept.count {
            let rows = min(Self.insertChunk, kept.count - start)
            let statement = try chunkStatement(full: Self.insertWalletChunkSQL, rows: rows, sql: Self.insertWalletsSQL)
            defer { statement.reset() }
            for row in 0..<rows {
                let (wallet, sealedKey) = wallets[kept[start + row]]
                try Self.bind(
                    wallet, project: project,
                    addressKey: WalletAddressKey.of(project: project, address: wallet.address),
                    sealedKey: sealedKey, now: now, to: statement, row: row)
            }
            try statement.step()
            let last = lastInsertRowID
            for row in 0..<rows {
                var record = wallets[kept[start + row]].record
                record.seq = last - Int64(rows - 1 - row)
                stored[kept[start + row]] = record
            }
            start += rows
        }
        return stored
    }

    /// A wallet to import: its row, its address key (`WalletAddressKey.of(project:address:)`, computed on the
    /// cores before the write) and its key sealed under the KEK.
    struct ImportedWalletRow {
        var record: WalletRecord
        var addressKey: Int64
        var sealedKey: [UInt8]
    }

    /// Inserts the imported wallets of `wallets` whose address the project does not hold yet, from the
    /// store or from an earlier entry of `wallets`; returns, by position, nil for a stored wallet or the
    /// wallet that holds the address. The same check as ``insertWallet(_:project:addressKey:sealedKey:now:)``,
    /// inside the writer's transaction, a window of ``insertChunk`` wallets at a time: one statement asks
    /// the recent tier for all of the window's keys and one reads the settled tier's version, the
    /// settled filter clears nearly every other key, and the window's new wallets go in by one multi-row
    /// `INSERT` (their recent address keys by a statement each: a multi-row insert into that random-order
    /// table keeps a statement journal of every page it touches). Only a key that may be held is looked
    /// up on its own (``importedWallet(address:project:key:)``).
    func insertImportedWallets(_ wallets: [ImportedWalletRow], project: String, now: Int64) throws -> [WalletRecord?] {
        var holders = [WalletRecord?](repeating: nil, count: wallets.count)
        var pending: [Int] = []
        pending.reserveCapacity(Self.insertChunk)
        // The window's keys taken for insertion, inserted yet or not: the window's recent-tier answer predates them.
        var windowKeys = Set<Int64>(minimumCapacity: Self.insertChunk)
        func insertPending() throws {
            guard !pending.isEmpty else { return }
            let first = try insertImportedWalletRows(pending.lazy.map { wallets[$0] }, project: project, now: now)
            let keys = try cachedStatement(Self.insertRecentAddressKeySQL)
            for (row, index) in pending.enumerated() {
                try keys.bind(wallets[index].addressKey, at: 1)
                try keys.bind(first + Int64(row), at: 2)
                try keys.step()
                keys.reset()
            }
            pending.removeAll(keepingCapacity: true)
        }
        var start = 0
        while start < wallets.count {
            let window = start..<min(start + Self.insertChunk, wallets.count)
            let (recent, version) = try recentAddressKeys(among: wallets[window].lazy.map(\.addressKey))
            let filter = settledAddressKeyFilter
            windowKeys.removeAll(keepingCapacity: true)
            for index in window {
                let wallet = wallets[index]
                let key = wallet.addressKey
                if windowKeys.contains(key) {
                    try insertPending()  // so that the lookup below sees them
                } else if !recent.contains(key), try !filter.mayHold(key, current: version, db: self) {
                    pending.append(index)
                    windowKeys.insert(key)
                    continue
                }
                // May be held: the wallet itself decides (the key is a hash of project and address).
                if let holder = try importedWallet(address: wallet.record.address, project: project, key: key) {
                    holders[index] = holder
                } else {
                    pending.append(index)
                    windowKeys.insert(key)
                }
            }
            try insertPending()
            start = window.upperBound
        }
        return holders
    }

    /// Which of `keys` (at most ``insertChunk``) the recent tier holds, and the settled tier's version,
    /// read in the same transaction (``SettledAddressKeyFilter``).
    private func recentAddressKeys(among keys: some Collection<Int64>) throws -> (Set<Int64>, version: Int64) {
        let statement = try chunkStatement(
            full: Self.recentAddressKeysAmongChunkSQL, rows: keys.count, sql: Self.recentAddressKeysAmongSQL)
        defer { statement.reset() }
        for (position, key) in keys.enumerated() { try statement.bind(key, at: Int32(position + 1)) }
        var held = Set<Int64>()
        while try statement.step() { held.insert(statement.int64(at: 0)) }
        let version = try cachedStatement(Self.settledVersionSQL)
        defer { version.reset() }
        return (held, try version.step() ? version.int64(at: 0) : 0)
    }

    private static func recentAddressKeysAmongSQL(_ count: Int) -> String {
        "SELECT address_key FROM imported_address_keys_recent WHERE address_key IN ("
            + Array(repeating: "?", count: count).joined(separator: ", ") + ")"
    }
    private static let recentAddressKeysAmongChunkSQL = StatementSQL(recentAddressKeysAmongSQL(insertChunk))
    private static let settledVersionSQL = StatementSQL("SELECT version FROM address_key_settlements WHERE id = 1")

    /// Inserts `wallets` (at most ``insertChunk``, imported) by one multi-row `INSERT`; returns the first
    /// one's `seq` (SQLite gives the rows of one statement consecutive rowids).
    private func insertImportedWalletRows(
        _ wallets: some Collection<ImportedWalletRow>, project: String, now: Int64
    ) throws -> Int64 {
        let insert = try chunkStatement(
            full: Self.insertWalletChunkSQL, rows: wallets.count, sql: Self.insertWalletsSQL)
        defer { insert.reset() }
        for (row, wallet) in wallets.enumerated() {
            precondition(wallet.record.keyOrigin == .imported, "only imported wallets are indexed by address")
            try Self.bind(
                wallet.record, project: project, addressKey: wallet.addressKey, sealedKey: wallet.sealedKey, now: now,
                to: insert, row: row)
        }
        try insert.step()
        return lastInsertRowID - Int64(wallets.count - 1)
    }

    /// Inserts `wallet` and returns it with its `seq`.
    ///
    /// - Throws: `WaasError.addressAlreadyImported` if `wallet` is imported and its address is held by
    ///   another imported wallet of the project: checked here, inside the writer's transaction, through
    ///   the imported address keys (``WalletAddressKey``; no unique index on the address text). An
    ///   enclave-made wallet's key is new and never leaves the core, so it is not checked (migration 6,
    ///   docs/core.md "Wallet storage").
    func insertWallet(_ wallet: WalletRecord, project: String, sealedKey: [UInt8], now: Int64) throws -> WalletRecord {
        try insertWallet(
            wallet, project: project, addressKey: WalletAddressKey.of(project: project, address: wallet.address),
            sealedKey: sealedKey, now: now)
    }

    /// ``insertWallet(_:project:sealedKey:now:)`` with the address key computed by the caller, which must be
    /// `WalletAddressKey.of(project:address:)`: a batch computes its keys on the cores before the write,
    /// so that the writer, which every request in flight waits for, does not hash.
    func insertWallet(
        _ wallet: WalletRecord, project: String, addressKey: Int64, sealedKey: [UInt8], now: Int64
    ) throws -> WalletRecord {
        if wallet.keyOrigin == .imported,
            try importedWallet(address: wallet.address, project: project, key: addressKey) != nil
        {
            throw WaasError(.addressAlreadyImported, "a wallet with address \(wallet.address) already exists")
        }
        let statement = try cachedStatement(Self.insertWalletSQL)
        defer { statement.reset() }
        try Self.bind(
            wallet, project: project, addressKey: addressKey, sealedKey: sealedKey, now: now, to: statement, row: 0)
        try statement.step()
        var stored = wallet
        stored.seq = lastInsertRowID
        if wallet.keyOrigin == .imported {
            let recent = try cachedStatement(Self.insertRecentAddressKeySQL)
            defer { recent.reset() }
            try recent.bind(addressKey, at: 1)
            try recent.bind(stored.seq, at: 2)
            try recent.step()
        }
        return stored
    }

    static func walletRecord(_ statement: Statement) -> WalletRecord {
        WalletRecord(
            seq: statement.int64(at: 0), id: statement.string(at: 1) ?? "", accountId: statement.string(at: 2) ?? "",
            type: WalletType(wire: statement.string(at: 3) ?? ""), address: statement.string(at: 4) ?? "",
            reference: statement.string(at: 5), keyOrigin: KeyOrigin(wire: statement.string(at: 6) ?? ""))
    }
}
