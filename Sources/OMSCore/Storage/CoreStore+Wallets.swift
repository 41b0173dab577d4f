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

    private static let insertWalletSQL =
        "INSERT INTO wallets(id, project_id, account_id, type, address, address_key, reference, key_origin, "
        + "sealed_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

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

    private static let insertRecentAddressKeySQL =
        "INSERT INTO imported_address_keys_recent(address_key, seq) VALUES (?, ?)"

    /// Inserts `wallet` unless its account already has a wallet with its reference. Returns the stored
    /// row, or nil when the reference was taken.
    ///
    /// A lookup, then a one-row `INSERT ... VALUES`: an `INSERT ... SELECT ... WHERE NOT EXISTS` would do
    /// both in one statement, but SQLite gives such a statement a statement journal, which copied every
    /// page the insert touched to a temporary file (about seven page writes per wallet).
    ///
    /// - Throws: `WaasError.addressAlreadyImported` if the address is held by another wallet.
    func insertWalletUnlessReferenced(_ wallet: WalletRecord, project: String, sealedKey: [UInt8], now: Int64) throws
        -> WalletRecord?
    {
        if let reference = wallet.reference, try self.wallet(account: wallet.accountId, reference: reference) != nil {
            return nil
        }
        return try insertWallet(wallet, project: project, sealedKey: sealedKey, now: now)
    }

    /// Inserts `wallet` and returns it with its `seq`.
    ///
    /// - Throws: `WaasError.addressAlreadyImported` if `wallet` is imported and its address is held by
    ///   another imported wallet of the project: checked here, inside the writer's transaction, through
    ///   the imported address keys (``WalletAddressKey``; no unique index on the address text). An
    ///   enclave-made wallet's key is new and never leaves the core, so it is not checked (migration 6,
    ///   docs/core.md "Wallet storage").
    func insertWallet(_ wallet: WalletRecord, project: String, sealedKey: [UInt8], now: Int64) throws -> WalletRecord {
        let addressKey = WalletAddressKey.of(project: project, address: wallet.address)
        if wallet.keyOrigin == .imported,
            try importedWallet(address: wallet.address, project: project, key: addressKey) != nil
        {
            throw WaasError(.addressAlreadyImported, "a wallet with address \(wallet.address) already exists")
        }
        let statement = try cachedStatement(Self.insertWalletSQL)
        defer { statement.reset() }
        try statement.bind(wallet.id, at: 1)
        try statement.bind(project, at: 2)
        try statement.bind(wallet.accountId, at: 3)
        try statement.bind(wallet.type.rawValue, at: 4)
        try statement.bind(wallet.address, at: 5)
        try statement.bind(addressKey, at: 6)
        try statement.bind(wallet.reference, at: 7)
        try statement.bind(wallet.keyOrigin.rawValue, at: 8)
        try statement.bind(sealedKey, at: 9)
        try statement.bind(now, at: 10)
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
