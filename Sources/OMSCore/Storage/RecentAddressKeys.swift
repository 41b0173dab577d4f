import SQLiteKit

/// The `address_key_settlements` row (migrations 7 and 8): which imported wallets' keys are in the settled
/// tier, and the tier's version.
struct AddressKeySettlements: Equatable {
    /// Random, new at every transaction that writes the settled tier (``SettledAddressKeyFilter``).
    var version: Int64
    /// Every imported wallet with `seq` up to this has its key settled.
    var settledThrough: Int64
    /// A pass in progress settles the wallets with `seq` in `settledThrough + 1 ... passThrough` in key
    /// order; equal to `settledThrough` when no pass is in progress.
    var passThrough: Int64
    /// The pass's wallets with a key below this are settled.
    var passCursor: Int64

    var passInProgress: Bool { passThrough > settledThrough }
}

/// One connection's index of the recent tier (migration 8): the address keys of the imported wallets
/// with `seq` past the settled watermark, in memory, with the `seq` of each key's wallet.
///
/// The wallets table is the source: every transaction that probes first catches up (``catchUp(_:)``),
/// reading the wallets other connections (other processes on the same home) committed since it last
/// looked, and this connection's own inserts are added as they are made. The index may hold more than
/// the recent tier, never less (keys a settling pass has already moved stay until the pass completes),
/// and a hit always reads the wallet row, whose project and address decide.
///
/// What it has seen is marked by the last wallet row it read or wrote, `seq` and id. If that row is gone
/// or another has its `seq` (the transaction that wrote it rolled back, and another writer may have reused
/// the `seq`), the index is built again from the wallets table: so does a key whose insert a failed
/// request's savepoint rolled back, since the last row written goes with it. Not `Sendable`: it lives with its connection
/// (``SQLiteDatabase/attachment(_:orMake:)``) and is confined to the connection's thread.
final class RecentAddressKeys {
    /// Each key's wallet `seq`; a second wallet under the same key (a 64-bit collision of two addresses)
    /// goes to `more`.
    private var seqs: [Int64: Int64] = [:]
    private var more: [Int64: [Int64]] = [:]
    /// Keys in `seqs` and `more`.
    private(set) var count = 0
    /// The watermark the index holds keys above.
    private var settledThrough: Int64 = 0
    /// The last wallet row read or written, every imported wallet up to it indexed; nil before the first build.
    private var seen: (seq: Int64, id: String?)?
    /// The settling pass in progress, as this connection last saw it (its keys are ``passKeys``), and how
    /// many of its keys are settled.
    private var pass: (settledThrough: Int64, through: Int64, settled: Int)?
    /// The pass's keys, sorted; the buffer is kept from pass to pass.
    private var passKeys: [(key: Int64, seq: Int64)] = []
    /// Builds from the wallets table, for tests.
    private(set) var builds = 0

    /// `capacity`: the keys the index is expected to hold at most, reserved at once (the writer's: twice
    /// the tiers' limit, since a pass's keys stay until it completes), so that its memory is allocated once
    /// rather than grown and given back as imports go on.
    init(capacity: Int = 0) {
        seqs.reserveCapacity(capacity)
        passKeys.reserveCapacity(capacity / 2)
    }

    /// Keys not yet settled: a settling pass starts when this reaches the
    /// tiers' limit.
    var unsettledCount: Int { count - (pass?.settled ?? 0) }

    /// Wallet rows past the watermark, about (enclave-made ones too): what a new connection's build reads.
    var rowsPastWatermark: Int64 { (seen?.seq ?? 0) - settledThrough }

    /// Brings the index up to date with the wallets table and returns the settlements row. Run it inside
    /// the transaction whose probes and inserts follow.
    func catchUp(_ db: SQLiteDatabase) throws -> AddressKeySettlements {
        let probe = try db.cachedStatement(Self.catchUpSQL)
        defer { probe.reset() }
        try probe.bind(seen?.seq ?? 0, at: 1)
        guard try probe.step() else { throw SQLiteError(code: 1, message: "address_key_settlements has no row") }
        let settlements = AddressKeySettlements(
            version: probe.int64(at: 0), settledThrough: probe.int64(at: 1), passThrough: probe.int64(at: 2),
            passCursor: probe.int64(at: 3))
        let seenID = probe.string(at: 4)
        let last = (seq: probe.isNull(at: 5) ? 0 : probe.int64(at: 5), id: probe.string(at: 6))
        guard let seen, seen.id == seenID, last.seq >= seen.seq else {
            try rebuild(db, settledThrough: settlements.settledThrough, last: last)
            return settlements
        }
        if settlements.settledThrough > settledThrough { prune(through: settlements.settledThrough) }
        if last.seq > seen.seq {
            try read(db, after: seen.seq)
            self.seen = last
        }
        return settlements
    }

    /// One statement: the settlements row, the id of the wallet at `?1` (the last one seen) and the last
    /// wallet's `seq` and id (primary-key seeks).
    private static let catchUpSQL = StatementSQL(
        "SELECT version, settled_through, pass_through, pass_cursor, "
            + "(SELECT id FROM wallets WHERE seq = ?1), "
            + "(SELECT seq FROM wallets ORDER BY seq DESC LIMIT 1), "
            + "(SELECT id FROM wallets ORDER BY seq DESC LIMIT 1) "
            + "FROM address_key_settlements WHERE id = 1")

    private static let importedAfterSQL = StatementSQL(
        "SELECT address_key, seq FROM wallets WHERE seq > ? AND key_origin = 'imported' ORDER BY seq")

    private func rebuild(
        _ db: SQLiteDatabase, settledThrough: Int64, last: (seq: Int64, id: String?)
    ) throws {
        seqs.removeAll(keepingCapacity: true)
        more.removeAll()
        count = 0
        pass = nil
        self.settledThrough = settledThrough
        try read(db, after: settledThrough)
        seen = last
        builds += 1
    }

    /// Adds the imported wallets past `seq`.
    private func read(_ db: SQLiteDatabase, after seq: Int64) throws {
        let scan = try db.cachedStatement(Self.importedAfterSQL)
        defer { scan.reset() }
        try scan.bind(seq, at: 1)
        while try scan.step() { add(key: scan.int64(at: 0), seq: scan.int64(at: 1)) }
    }

    /// Drops the keys at or below the new watermark: another connection's pass, or this one's, completed.
    /// In place, so the index's storage is allocated once (see ``init(capacity:)``).
    private func prune(through watermark: Int64) {
        if let pass, pass.settledThrough == settledThrough, pass.through == watermark {
            // This connection's pass: its keys are the ones to drop.
            for (key, _) in passKeys { remove(key, through: watermark) }
        } else {
            for key in seqs.compactMap({ $0.value <= watermark ? $0.key : nil }) { remove(key, through: watermark) }
        }
        for (key, seqs) in more where seqs.contains(where: { $0 <= watermark }) { remove(key, through: watermark) }
        settledThrough = watermark
        if let pass, pass.through <= watermark { self.pass = nil }
    }

    /// Drops the wallets of `key` at or below `watermark`.
    private func remove(_ key: Int64, through watermark: Int64) {
        guard let first = seqs[key] else { return }
        var all = [first] + (more.removeValue(forKey: key) ?? [])
        let before = all.count
        all.removeAll { $0 <= watermark }
        count -= before - all.count
        if let kept = all.first {
            seqs[key] = kept
            if all.count > 1 { more[key] = Array(all.dropFirst()) }
        } else {
            seqs.removeValue(forKey: key)
        }
    }

    private func add(key: Int64, seq: Int64) {
        if seqs[key] == nil {
            seqs[key] = seq
        } else {
            more[key, default: []].append(seq)
        }
        count += 1
    }

    /// This connection inserted an imported wallet (after ``catchUp(_:)`` in the same transaction).
    func inserted(key: Int64, seq: Int64, id: String) {
        add(key: key, seq: seq)
        seen = (seq, id)
    }

    /// Whether the index holds `key`.
    func contains(_ key: Int64) -> Bool { seqs[key] != nil }

    /// The `seq`s of the wallets indexed under `key`.
    func seqs(of key: Int64) -> [Int64] {
        guard let first = seqs[key] else { return [] }
        return [first] + (more[key] ?? [])
    }

    /// The next chunk of the settling pass described by `settlements` (at least `limit` keys unless the
    /// pass has fewer left, and every key equal to the last one), in key order, and the settlements row
    /// after it. Starts a pass over every wallet row when none is in progress (it may hold no imported key,
    /// and then only moves the watermark on). Nil when no wallet row lies past the watermark.
    func nextChunk(_ settlements: AddressKeySettlements, limit: Int) -> (
        keys: ArraySlice<(key: Int64, seq: Int64)>, after: AddressKeySettlements
    )? {
        var state = settlements
        if !state.passInProgress {
            guard let seen, seen.seq > state.settledThrough else { return nil }
            state.passThrough = seen.seq
            state.passCursor = Int64.min
        }
        preparePassKeys(state)
        let keys = passKeys
        let start = keys.partitioningIndex { $0.key >= state.passCursor }
        var end = min(start + max(limit, 1), keys.count)
        while end < keys.count && keys[end].key == keys[end - 1].key { end += 1 }
        if end == keys.count {
            state.settledThrough = state.passThrough
            state.passCursor = 0
        } else {
            state.passCursor = keys[end].key
        }
        pass?.settled = end
        return (keys[start..<end], state)
    }

    /// Sorts the keys of the pass of `state` into ``passKeys`` unless they are there already (the pass is
    /// the one this connection last saw).
    private func preparePassKeys(_ state: AddressKeySettlements) {
        if let pass, pass.settledThrough == state.settledThrough, pass.through == state.passThrough { return }
        passKeys.removeAll(keepingCapacity: true)
        let range = (state.settledThrough + 1)...state.passThrough
        for (key, seq) in seqs where range.contains(seq) { passKeys.append((key, seq)) }
        for (key, seqs) in more { for seq in seqs where range.contains(seq) { passKeys.append((key, seq)) } }
        passKeys.sort { ($0.key, $0.seq) < ($1.key, $1.seq) }
        pass = (state.settledThrough, state.passThrough, 0)
    }
}

extension Array {
    /// The first index whose element satisfies `belongs`, for a predicate false then true along the array.
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension SQLiteDatabase {
    /// This connection's index of the recent address keys.
    var recentAddressKeys: RecentAddressKeys {
        attachment(RecentAddressKeys.self) { RecentAddressKeys() }
    }
}
