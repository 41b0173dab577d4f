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

    /// Rows per multi-row `INSERT` of ``insertEnclaveWalletsUnlessReferenced(_:project:now:)``. In C
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
            let statement = try cachedStatement(Self.insertWalletsSQL(rows: rows))
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
