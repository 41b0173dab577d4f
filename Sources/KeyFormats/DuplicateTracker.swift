/// Remembers which source first held each key fingerprint, to refuse later copies of a key.
///
/// Holds only fingerprints and source names (32 bytes plus the name per key), never key material.
/// Not thread-safe: one tracker per reader loop, or guard it with a lock.
public struct DuplicateTracker: Sendable {
    private var firstSource: [KeyFingerprint: String] = [:]

    /// An empty tracker.
    public init() {}

    /// The number of distinct keys seen.
    public var count: Int { firstSource.count }

    /// Records `key` as seen at `source`, or throws when an earlier source had the same key.
    ///
    /// - Throws: `KeyFormatError` `.duplicateKey` (class `duplicate`) naming both sources and the
    ///   address, e.g. "the same key (ethereum address 0xAb…) was first seen at source 3".
    public mutating func record(_ key: ParsedKey, source: String) throws(KeyFormatError) {
        if let first = firstSource[key.fingerprint] {
            throw KeyFormatError(
                .duplicateKey, "the same key (\(key.type) address \(key.address)) was first seen at source \(first)",
                source: source)
        }
        firstSource[key.fingerprint] = source
    }

    /// The source that first held `fingerprint`, if any.
    public func firstSource(of fingerprint: KeyFingerprint) -> String? { firstSource[fingerprint] }
}
