import SQLiteKit

/// When and how much the writer settles imported address keys from the recent tier into the settled
/// one (migration 6).
///
/// A settled page takes the keys of one pass in one write, so the fewer passes the better; the recent
/// tier's pages take each group commit's keys, so the smaller it is the better. About 32,768 recent keys
/// (some 200 pages of 4 KiB) keeps both small up to several million imported wallets; a pass moves
/// 4,096 keys per transaction, whose dirty pages stay a few megabytes however large the table grows.
struct AddressKeyTiers: Sendable {
    /// Settling starts when the recent tier holds this many keys, and moves chunks until it holds fewer.
    var recentLimit = 32_768
    /// Keys moved per transaction.
    var chunk = 4_096
    /// Committed write weight between two looks at the recent tier's size (a count of its rows).
    var checkEvery = 4_096
    /// Probes of new keys before the writer first builds its filter of the settled keys
    /// (``SettledAddressKeyFilter/buildAfter``).
    var filterBuildAfter = SettledAddressKeyFilter.defaultBuildAfter
}

extension SQLiteDatabase {
    /// Keys in the recent tier.
    func recentAddressKeyCount() throws -> Int {
        Int(try scalarInt("SELECT count(*) FROM imported_address_keys_recent") ?? 0)
    }

    /// Moves the recent keys from `cursor` up, at most about `limit` of them (every key equal to the last
    /// one goes too), to the settled tier, in key order. Returns how many moved and where the next chunk
    /// starts: after the last key moved, or back at the lowest key once the top was reached. Run it in
    /// a transaction: a lookup sees each key in exactly one tier at every commit, and the settled tier's
    /// new version (migration 7) commits with the keys. This connection's filter of the settled keys
    /// takes the moved ones (``SettledAddressKeyFilter``); other connections' filters are out of date.
    func settleAddressKeys(from cursor: Int64, limit: Int) throws -> (moved: Int, next: Int64) {
        let boundary = try cachedStatement(
            "SELECT address_key FROM imported_address_keys_recent WHERE address_key >= ? "
                + "ORDER BY address_key LIMIT 1 OFFSET ?")
        try boundary.bind(cursor, at: 1)
        try boundary.bind(max(limit, 1) - 1, at: 2)
        let last: Int64? = try boundary.step() ? boundary.int64(at: 0) : nil
        boundary.reset()
        let upper = last ?? Int64.max
        let old = try scalarInt("SELECT version FROM address_key_settlements WHERE id = 1") ?? 0
        let filter = settledAddressKeyFilter
        let keys = filter.covers(version: old) ? try recentAddressKeys(from: cursor, through: upper) : []
        let copy = try cachedStatement(
            "INSERT INTO imported_address_keys(address_key, seq) SELECT address_key, seq "
                + "FROM imported_address_keys_recent WHERE address_key BETWEEN ? AND ? ORDER BY address_key, seq")
        defer { copy.reset() }
        try copy.bind(cursor, at: 1)
        try copy.bind(upper, at: 2)
        try copy.step()
        let moved = changes
        let remove = try cachedStatement("DELETE FROM imported_address_keys_recent WHERE address_key BETWEEN ? AND ?")
        defer { remove.reset() }
        try remove.bind(cursor, at: 1)
        try remove.bind(upper, at: 2)
        try remove.step()
        if moved > 0 {
            var new = old
            while new == old { new = Int64.random(in: Int64.min...Int64.max) }
            try execute("UPDATE address_key_settlements SET version = ? WHERE id = 1", [.integer(new)])
            try filter.settled(keys, from: old, to: new, db: self)
        }
        return (moved, upper == Int64.max ? Int64.min : upper + 1)
    }

    /// The recent tier's keys in `[lower, upper]`.
    private func recentAddressKeys(from lower: Int64, through upper: Int64) throws -> [Int64] {
        let statement = try cachedStatement(
            "SELECT address_key FROM imported_address_keys_recent WHERE address_key BETWEEN ? AND ?")
        defer { statement.reset() }
        try statement.bind(lower, at: 1)
        try statement.bind(upper, at: 2)
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int64(at: 0)) }
        return keys
    }
}
