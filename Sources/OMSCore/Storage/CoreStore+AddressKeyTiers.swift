import SQLiteKit

/// When and how much the writer settles imported address keys from the recent tier into the settled
/// one (migrations 6 and 8).
///
/// A settled page takes the keys of one pass in one write, so the fewer passes the better; the recent
/// keys are held in each connection's memory (``RecentAddressKeys``), so the fewer the better too. About
/// 32,768 recent keys (about 1 MiB of index) keeps both small up to several million imported wallets; a
/// pass moves 4,096 keys per transaction, whose dirty pages stay a few megabytes however large the table
/// grows.
struct AddressKeyTiers: Sendable {
    /// A pass starts when the recent tier holds this many keys, and chunks move while it holds as many.
    var recentLimit = 32_768
    /// Keys moved per transaction.
    var chunk = 4_096
    /// Committed write weight between two looks at the recent tier's size.
    var checkEvery = 4_096
    /// Probes of new keys before the writer first builds its filter of the settled keys
    /// (``SettledAddressKeyFilter/buildAfter``).
    var filterBuildAfter = SettledAddressKeyFilter.defaultBuildAfter

    /// Chunks moved at one look at most: as many as the keys a look's writes add, and one more, so a
    /// backlog (the pass a killed process left) drains a chunk a look between group commits rather than
    /// holding every write while all of it moves.
    var chunksPerLook: Int { (checkEvery + chunk - 1) / max(chunk, 1) + 1 }

    /// The writer's index of the recent keys is reserved for this many (``RecentAddressKeys/init(capacity:)``):
    /// a pass's keys stay until it completes, and as many arrive meanwhile. At most 2^18 (4 MiB).
    var indexCapacity: Int { min(2 * recentLimit + checkEvery, 1 << 18) }
}

extension SQLiteDatabase {
    /// Keys in the recent tier, about: this connection's index of them, caught up (for tests).
    func recentAddressKeyCount() throws -> Int {
        let recent = recentAddressKeys
        _ = try recent.catchUp(self)
        return recent.unsettledCount
    }

    /// A pass starts when the wallet rows past the watermark reach this many times the threshold, however
    /// few of them are imported.
    static let rowsPastWatermarkFactor: Int64 = 8

    /// A settling chunk's keys go in ``insertChunk`` per `INSERT`: fewer statements for the same pages,
    /// less of the writer's CPU (docs/core.md "Wallet storage" has the settles' times either way).
    private static func settleKeysSQL(_ rows: Int) -> String {
        "INSERT OR IGNORE INTO imported_address_keys(address_key, seq) VALUES "
            + Array(repeating: "(?, ?)", count: rows).joined(separator: ", ")
    }
    private static let settleKeysSQL = StatementSQL(settleKeysSQL(insertChunk))
    private static let settlementsUpdateSQL = StatementSQL(
        "UPDATE address_key_settlements SET version = ?, settled_through = ?, pass_through = ?, pass_cursor = ? "
            + "WHERE id = 1")

    /// Moves the next chunk of at least `limit` recent keys (every key equal to the last one goes too) to
    /// the settled tier, in key order, if the recent tier holds `threshold` keys or more (at least one), or
    /// ``rowsPastWatermarkFactor`` times as many wallet rows lie past the watermark; starts a pass when
    /// none is in progress. Returns how many keys moved. Run it in a
    /// transaction: a lookup finds each key at every commit, and the settled tier's new version
    /// (migration 7) and watermark (migration 8) commit with its keys. This connection's filter of the
    /// settled keys takes the moved ones (``SettledAddressKeyFilter``); other connections' filters are out
    /// of date.
    func settleAddressKeys(limit: Int, threshold: Int) throws -> Int {
        let recent = recentAddressKeys
        let settlements = try recent.catchUp(self)
        // Also when many wallet rows, most of them enclave-made, lie past the watermark: a pass over few keys
        // moves the watermark on, so that a new connection's build reads a bounded number of rows.
        let threshold = max(threshold, 1)
        let manyRows = recent.rowsPastWatermark >= Self.rowsPastWatermarkFactor * Int64(threshold)
        guard recent.unsettledCount >= threshold || manyRows,
            let (keys, after) = recent.nextChunk(settlements, limit: limit)
        else { return 0 }
        var start = keys.startIndex
        while start < keys.endIndex {
            let rows = min(Self.insertChunk, keys.endIndex - start)
            let insert = try chunkStatement(full: Self.settleKeysSQL, rows: rows, sql: Self.settleKeysSQL)
            for (row, (key, seq)) in keys[start..<(start + rows)].enumerated() {
                try insert.bind(key, at: Int32(2 * row + 1))
                try insert.bind(seq, at: Int32(2 * row + 2))
            }
            try insert.step()
            insert.reset()
            start += rows
        }
        var state = after
        while state.version == settlements.version { state.version = Int64.random(in: Int64.min...Int64.max) }
        let update = try cachedStatement(Self.settlementsUpdateSQL)
        defer { update.reset() }
        try update.bind(state.version, at: 1)
        try update.bind(state.settledThrough, at: 2)
        try update.bind(state.passThrough, at: 3)
        try update.bind(state.passCursor, at: 4)
        try update.step()
        try settledAddressKeyFilter.settled(keys.map(\.key), from: settlements.version, to: state.version, db: self)
        return keys.count
    }
}
