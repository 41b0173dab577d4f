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

    /// The imported wallet of `project` that holds `address`, through the recent address keys (in this
    /// connection's memory) and the settled tier. Enclave-made wallets are not indexed: their keys never
    /// leave the core, so no import can carry one (migrations 6 and 8, docs/core.md "Wallet storage").
    func importedWallet(address: String, project: String) throws -> WalletRecord? {
        try importedWallet(
            address: address, project: project, key: WalletAddressKey.of(project: project, address: address))
    }

    /// ``importedWallet(address:project:)`` with the address key computed by the caller
    /// (`WalletAddressKey.of(project:address:)`).
    func importedWallet(address: String, project: String, key: Int64) throws -> WalletRecord? {
        let settlements = try recentAddressKeys.catchUp(self)
        return try importedWallet(address: address, project: project, key: key, version: settlements.version)
    }

    /// Whether the settled tier holds `key`: a primary-key probe, no table row read.
    private static let settledAddressKeyProbeSQL = StatementSQL(
        "SELECT EXISTS (SELECT 1 FROM imported_address_keys WHERE address_key = ?1)")

    private static let settledWalletByAddressSQL = StatementSQL(
        "SELECT \(walletColumns) FROM wallets WHERE seq IN (SELECT seq FROM imported_address_keys WHERE address_key = ?1) "
            + "AND project_id = ?2 AND address = ?3 ORDER BY seq LIMIT 1")

    private static let walletBySeqAndAddressSQL = StatementSQL(
        "SELECT \(walletColumns) FROM wallets WHERE seq = ?1 AND project_id = ?2 AND address = ?3")

    /// The wallet that `sql` (one of the two above: an address key or a `seq` as ?1, then project and
    /// address) finds.
    private func wallet(_ sql: StatementSQL, _ first: Int64, project: String, address: String) throws -> WalletRecord? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(first, at: 1)
        try statement.bind(project, at: 2)
        try statement.bind(address, at: 3)
        return try statement.step() ? Self.walletRecord(statement) : nil
    }

    /// The lookup after ``RecentAddressKeys/catchUp(_:)`` in the same transaction; `version` is the
    /// settled tier's. The key is a hash of project and address, so a hit may be another address's: the
    /// wallet row decides. The settled tier is asked only when this connection's filter of
    /// its keys may hold `key` (0.1-2 % of new keys) or is out of date, and its wallet row (through
    /// ``settledWalletByAddressSQL``, whose `seq IN (...)` builds a temporary index each time) is read on a
    /// hit alone.
    private func importedWallet(address: String, project: String, key: Int64, version: Int64) throws -> WalletRecord? {
        if try settledAddressKeyFilter.mayHold(key, current: version, db: self) {
            let probe = try cachedStatement(Self.settledAddressKeyProbeSQL)
            try probe.bind(key, at: 1)
            let held = try probe.step() && probe.int64(at: 0) != 0
            probe.reset()
            if held, let wallet = try wallet(Self.settledWalletByAddressSQL, key, project: project, address: address) {
                return wallet
            }
        }
        for seq in recentAddressKeys.seqs(of: key) {
            if let wallet = try wallet(Self.walletBySeqAndAddressSQL, seq, project: project, address: address) {
                return wallet
            }
        }
        return nil
    }

    /// The insert of a full chunk, found by identity (its text is long to hash on every chunk).
    private static let insertWalletChunkSQL = StatementSQL(insertWalletsSQL(rows: insertChunk))

    /// The statement of a chunk of `rows`: the cached full-chunk one, or one built for a batch's last, shorter chunk.
    func chunkStatement(full: StatementSQL, rows: Int, sql: (Int) -> String) throws -> Statement {
        try rows == Self.insertChunk ? cachedStatement(full) : cachedStatement(sql(rows))
    }

    /// Rows per multi-row `INSERT` of ``insertEnclaveWalletsUnlessReferenced(_:project:now:)`` and
    /// ``insertImportedWallets(_:project:now:)``. In C (`bench/floor/address_index.c`, 100,000 rows, no address index) one row
    /// per statement took 8.85 us per row, 20 per statement 6.74 us and 100 per statement 5.28 us
    /// (`address_index 1 R 2 100000`).
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
    /// inside the writer's transaction: the recent keys are in memory and the settled filter clears nearly
    /// every other key, so the new wallets go in by multi-row `INSERT`s of ``insertChunk``, and only a key
    /// that may be held is looked up on its own (``importedWallet(address:project:key:version:)``).
    func insertImportedWallets(_ wallets: [ImportedWalletRow], project: String, now: Int64) throws -> [WalletRecord?] {
        let recent = recentAddressKeys
        let version = try recent.catchUp(self).version
        let filter = settledAddressKeyFilter
        var holders = [WalletRecord?](repeating: nil, count: wallets.count)
        var pending: [Int] = []
        pending.reserveCapacity(Self.insertChunk)
        // The keys taken for insertion and not yet inserted: not in the index yet.
        var pendingKeys = Set<Int64>(minimumCapacity: Self.insertChunk)
        func insertPending() throws {
            guard !pending.isEmpty else { return }
            let first = try insertImportedWalletRows(pending.lazy.map { wallets[$0] }, project: project, now: now)
            for (row, index) in pending.enumerated() {
                recent.inserted(key: wallets[index].addressKey, seq: first + Int64(row), id: wallets[index].record.id)
            }
            pending.removeAll(keepingCapacity: true)
            pendingKeys.removeAll(keepingCapacity: true)
        }
        func take(_ index: Int, key: Int64) throws {
            pending.append(index)
            pendingKeys.insert(key)
            if pending.count == Self.insertChunk { try insertPending() }
        }
        for (index, wallet) in wallets.enumerated() {
            let key = wallet.addressKey
            if pendingKeys.contains(key) {
                try insertPending()  // so that the lookup below sees them
            } else if !recent.contains(key), try !filter.mayHold(key, current: version, db: self) {
                try take(index, key: key)
                continue
            }
            // May be held: the wallet itself decides (the key is a hash of project and address).
            if let holder = try importedWallet(
                address: wallet.record.address, project: project, key: key, version: version)
            {
                holders[index] = holder
            } else {
                try take(index, key: key)
            }
        }
        try insertPending()
        return holders
    }

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
            recentAddressKeys.inserted(key: addressKey, seq: stored.seq, id: wallet.id)
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
