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

    private func importedWallet(address: String, project: String, key: Int64) throws -> WalletRecord? {
        let statement = try cachedStatement(Self.importedWalletByAddressSQL)
        defer { statement.reset() }
        try statement.bind(key, at: 1)
        try statement.bind(project, at: 2)
        try statement.bind(address, at: 3)
        guard try statement.step() else { return nil }
        return Self.walletRecord(statement)
    }

    /// Rows per multi-row `INSERT` of ``insertWallets(_:project:now:skippingTakenReferences:)``: one
    /// statement step per row cost about 40 % more writer time than one per 64 (`bench/floor/address_index.c`,
    /// `address_index 1 1 2 100000` against `address_index 1 64 2 100000`).
    static let insertChunk = 64

    private static func insertRowsSQL(_ head: String, columns: Int, rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return head + " VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    private static let insertWalletsHead =
        "INSERT INTO wallets(id, project_id, account_id, type, address, address_key, reference, key_origin, "
        + "sealed_key, created_at)"

    private static let insertRecentKeysHead = "INSERT INTO imported_address_keys_recent(address_key, seq)"

    /// Inserts `wallets` and returns the stored rows, with their `seq`, by position; nil for a wallet
    /// left out:
    /// - an imported wallet whose address the project already holds among its imported wallets, in the
    ///   store or earlier in `wallets` (checked here, inside the writer's transaction, through the
    ///   imported address keys: ``WalletAddressKey``, no unique index on the address text). An
    ///   enclave-made wallet's key is new and never leaves the core, so it is not checked (migration 6,
    ///   docs/core.md "Wallet storage");
    /// - with `skippingTakenReferences`, a wallet whose account has a wallet with its reference, in the
    ///   store or earlier in `wallets`.
    ///
    /// The checks run first, row by row; the rows kept go in by multi-row `INSERT`s of ``insertChunk``,
    /// and within one statement SQLite numbers rows consecutively, so each `seq` follows from the last
    /// rowid. An imported wallet's address key then goes to the recent tier. (An `INSERT ... SELECT ...
    /// WHERE NOT EXISTS` would fold the reference check in, but its statement journal copied every page it
    /// touched: about seven page writes per wallet, with the journal in a file then.)
    func insertWallets(
        _ wallets: [(record: WalletRecord, sealedKey: [UInt8])], project: String, now: Int64,
        skippingTakenReferences: Bool
    ) throws -> [WalletRecord?] {
        var kept: [(index: Int, addressKey: Int64)] = []
        kept.reserveCapacity(wallets.count)
        var references = Set<String>()
        var importedAddresses = Set<String>()
        for (index, wallet) in wallets.enumerated() {
            let record = wallet.record
            let addressKey = WalletAddressKey.of(project: project, address: record.address)
            if skippingTakenReferences, let reference = record.reference {
                if references.contains(reference) { continue }
                if try self.wallet(account: record.accountId, reference: reference) != nil { continue }
                references.insert(reference)
            }
            if record.keyOrigin == .imported {
                if importedAddresses.contains(record.address) { continue }
                if try importedWallet(address: record.address, project: project, key: addressKey) != nil { continue }
                importedAddresses.insert(record.address)
            }
            kept.append((index, addressKey))
        }
        var stored = [WalletRecord?](repeating: nil, count: wallets.count)
        var start = 0
        while start < kept.count {
            let chunk = kept[start..<min(start + Self.insertChunk, kept.count)]
            let statement = try cachedStatement(
                Self.insertRowsSQL(Self.insertWalletsHead, columns: 10, rows: chunk.count))
            defer { statement.reset() }
            for (row, entry) in chunk.enumerated() {
                let (wallet, sealedKey) = wallets[entry.index]
                let base = Int32(row * 10)
                try statement.bind(wallet.id, at: base + 1)
                try statement.bind(project, at: base + 2)
                try statement.bind(wallet.accountId, at: base + 3)
                try statement.bind(wallet.type.rawValue, at: base + 4)
                try statement.bind(wallet.address, at: base + 5)
                try statement.bind(entry.addressKey, at: base + 6)
                try statement.bind(wallet.reference, at: base + 7)
                try statement.bind(wallet.keyOrigin.rawValue, at: base + 8)
                try statement.bind(sealedKey, at: base + 9)
                try statement.bind(now, at: base + 10)
            }
            try statement.step()
            let last = lastInsertRowID
            var recentKeys: [(key: Int64, seq: Int64)] = []
            for (row, entry) in chunk.enumerated() {
                var record = wallets[entry.index].record
                record.seq = last - Int64(chunk.count - 1 - row)
                if record.keyOrigin == .imported { recentKeys.append((entry.addressKey, record.seq)) }
                stored[entry.index] = record
            }
            if !recentKeys.isEmpty {
                let recent = try cachedStatement(
                    Self.insertRowsSQL(Self.insertRecentKeysHead, columns: 2, rows: recentKeys.count))
                defer { recent.reset() }
                for (row, entry) in recentKeys.enumerated() {
                    try recent.bind(entry.key, at: Int32(2 * row + 1))
                    try recent.bind(entry.seq, at: Int32(2 * row + 2))
                }
                try recent.step()
            }
            start += chunk.count
        }
        return stored
    }

    /// Inserts `wallet` and returns it with its `seq` (``insertWallets(_:project:now:skippingTakenReferences:)``).
    ///
    /// - Throws: `WaasError.addressAlreadyImported` if `wallet` is imported and its address is held by
    ///   another imported wallet of the project.
    func insertWallet(_ wallet: WalletRecord, project: String, sealedKey: [UInt8], now: Int64) throws -> WalletRecord {
        guard
            let stored = try insertWallets(
                [(wallet, sealedKey)], project: project, now: now, skippingTakenReferences: false
            ).first ?? nil
        else {
            throw Self.addressHeld(wallet.address)
        }
        return stored
    }

    /// AddressAlreadyImported for `address`.
    static func addressHeld(_ address: String) -> WaasError {
        WaasError(.addressAlreadyImported, "a wallet with address \(address) already exists")
    }

    static func walletRecord(_ statement: Statement) -> WalletRecord {
        WalletRecord(
            seq: statement.int64(at: 0), id: statement.string(at: 1) ?? "", accountId: statement.string(at: 2) ?? "",
            type: WalletType(wire: statement.string(at: 3) ?? ""), address: statement.string(at: 4) ?? "",
            reference: statement.string(at: 5), keyOrigin: KeyOrigin(wire: statement.string(at: 6) ?? ""))
    }
}
