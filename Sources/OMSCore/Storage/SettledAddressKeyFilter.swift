import SQLiteKit

/// What one connection knows of the settled tier of imported address keys (migration 6): a Bloom filter
/// of its keys, so an import's probe of a new key skips that tier's B-tree.
///
/// Nearly every key an import stores is new, and its settled-tier probe is a B-tree descent to a random
/// leaf. Past about half a million imported wallets those leaves no longer fit the writer's 4 MiB page
/// cache, and each probe became a read from the OS's page cache: at 1,000,000 rows an import spent more
/// than a tenth of its time per key above the 100,000-row figure (README "Benchmarks"). The filter
/// answers "not settled" from memory for all but 0.1-2 % of new keys (``AddressKeyBloom``); a "maybe"
/// probes the table as before, so the filter changes no answer, only the cost of reaching it.
///
/// It is exact about absence only while it covers every settled key, and other connections (other
/// processes on the same home) settle keys too. So every transaction that writes the settled tier sets
/// `address_key_settlements.version` to a new random value (migration 7), and the probing transaction
/// reads the version as it catches up the recent keys (``RecentAddressKeys/catchUp(_:)``): the filter is
/// used only when it was built or last updated at exactly that version. Random rather than counted, so that a settle rolled back after the filter
/// took its keys (the filter then names a version the table never had) cannot match a later one.
///
/// Not `Sendable`: it lives with its connection (``SQLiteDatabase/attachment(_:orMake:)``) and is
/// confined to the connection's thread.
final class SettledAddressKeyFilter {
    /// Probes made without an up-to-date filter before the first build: a home's first few imports
    /// (a single key, say) do not pay a scan of a large settled tier.
    let buildAfter: Int
    private var bloom: AddressKeyBloom?
    /// The version of `address_key_settlements` that `bloom` covers.
    private var version: Int64 = 0
    /// Probes since the filter was last up to date.
    private var probesWithoutFilter = 0
    /// Keys the last build read: a rebuild waits for an eighth as many probes, so another process
    /// that keeps settling (each of its settles makes this filter out of date) costs at most one
    /// scanned key per eight probes, and a probe without the filter is what every probe cost before it.
    private var lastScanned = 0

    /// ``buildAfter`` unless the store sets another (``AddressKeyTiers/filterBuildAfter``).
    static let defaultBuildAfter = 4_096

    init(buildAfter: Int = defaultBuildAfter) {
        self.buildAfter = max(buildAfter, 1)
    }

    /// Whether the settled tier may hold `key`. `current` is the settlements version read in the same
    /// transaction (or statement) as the caller's other probes; `db` is the connection to scan when
    /// the filter must be (re)built.
    func mayHold(_ key: Int64, current: Int64, db: SQLiteDatabase) throws -> Bool {
        if let bloom, version == current { return bloom.mayContain(key) }
        probesWithoutFilter += 1
        guard probesWithoutFilter >= max(buildAfter, lastScanned / 8) else { return true }
        try rebuild(db, version: current)
        return bloom?.mayContain(key) ?? true
    }

    /// Whether the filter covers the settled tier at `version`.
    func covers(version: Int64) -> Bool { bloom != nil && self.version == version }

    /// Keys this connection's settle moved, in the transaction that set the version from `old` to `new`.
    /// An up-to-date filter takes them and stays so; any other is left out of date.
    func settled(_ keys: [Int64], from old: Int64, to new: Int64, db: SQLiteDatabase) throws {
        guard var bloom, version == old else { return }
        self.bloom = nil  // unique while inserting
        for key in keys { bloom.insert(key) }
        self.bloom = bloom
        version = new
        // Under ten bits a key the false hits grow: build it again at its new size (amortized by doubling).
        if bloom.isCrowded { try rebuild(db, version: new) }
    }

    /// Reads every settled key. Run in the transaction that read `version` (or any later snapshot: the
    /// settled tier only grows, so a later scan still covers that version's keys).
    private func rebuild(_ db: SQLiteDatabase, version: Int64) throws {
        let count = Int(try db.scalarInt("SELECT count(*) FROM imported_address_keys") ?? 0)
        var bloom = AddressKeyBloom(capacity: count)
        let scan = try db.cachedStatement("SELECT address_key FROM imported_address_keys")
        defer { scan.reset() }
        var scanned = 0
        while try scan.step() {
            bloom.insert(scan.int64(at: 0))
            scanned += 1
        }
        self.bloom = bloom
        self.version = version
        lastScanned = scanned
        probesWithoutFilter = 0
    }
}

/// A blocked Bloom filter of 64-bit keys: a key sets 4 bits of one 64-bit word, so a lookup reads one
/// word. Sized at 16 to 32 bits a key when built, rebuilt larger below 10, at most 2^21 words (16 MiB,
/// about 13 million keys at 10 bits each; past that the false hits grow, answers stay right). False hits
/// per million random absent keys, measured once (2026-11-30, a throwaway test over `AddressKeyBloom`):
/// 5,436 at 16 bits a key, 819 at 32, 18,942 at 10.
struct AddressKeyBloom {
    private var words: [UInt64]
    /// 64 minus log2 of the word count: a key's top bits (after mixing) pick its word.
    private let shift: UInt64
    private(set) var count = 0

    static let maxWordsLog2 = 21

    init(capacity: Int) {
        var wordsLog2 = 10
        while (1 << wordsLog2) * 64 < max(capacity, 1) * 16 && wordsLog2 < Self.maxWordsLog2 { wordsLog2 += 1 }
        words = [UInt64](repeating: 0, count: 1 << wordsLog2)
        shift = UInt64(64 - wordsLog2)
    }

    /// Fewer than ten bits a key (and room to grow).
    var isCrowded: Bool { count * 10 > words.count * 64 && words.count < 1 << Self.maxWordsLog2 }

    mutating func insert(_ key: Int64) {
        let hash = Self.mix(key)
        words[Int(hash >> shift)] |= Self.bits(hash)
        count += 1
    }

    func mayContain(_ key: Int64) -> Bool {
        let hash = Self.mix(key)
        let bits = Self.bits(hash)
        return words[Int(hash >> shift)] & bits == bits
    }

    /// Four bit positions from the low 24 bits; the word comes from the top bits.
    private static func bits(_ hash: UInt64) -> UInt64 {
        (1 << (hash & 63)) | (1 << ((hash >> 6) & 63)) | (1 << ((hash >> 12) & 63)) | (1 << ((hash >> 18) & 63))
    }

    /// Address keys are SHA-256 prefixes already; mixing keeps the filter sound for any integers
    /// (the splitmix64 finalizer, a bijection).
    private static func mix(_ key: Int64) -> UInt64 {
        var z = UInt64(bitPattern: key)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SQLiteDatabase {
    /// This connection's filter of the settled address keys: the writer's is attached by ``CoreStore``
    /// with its tiers' build threshold; any other connection gets one with the default on first use.
    var settledAddressKeyFilter: SettledAddressKeyFilter {
        attachment(SettledAddressKeyFilter.self) { SettledAddressKeyFilter() }
    }
}
