import Foundation
import Synchronization

/// Certificate chains already verified to a pinned root, so the documents of one enclave pay the path
/// check ([RFC 5280 §6](https://www.rfc-editor.org/rfc/rfc5280#section-6)) once instead of per reply.
///
/// An entry is keyed by SHA-256 over the pinned root's fingerprint and the exact DER of every bundle
/// certificate and of the leaf, so any change of any certificate misses. It keeps the leaf's P-384 key
/// and the window in which every certificate of the verified path is valid (the latest `notBefore`, the
/// earliest `notAfter`); a hit outside that window is no hit, and the full check runs (and fails). What
/// differs per document (its COSE signature, nonce, timestamp, PCRs, `user_data`) is never cached.
/// Bounded: the least recently used entry goes first.
public final class X509ChainCache: Sendable {
    /// A verified chain: the leaf's key and when the whole path is valid.
    struct Entry: Sendable {
        var key: [UInt8]
        var leafKey: P384.Signing.PublicKey
        var validFrom: Date
        var validUntil: Date
    }

    /// At most this many chains are kept.
    public let capacity: Int
    /// Most recently used last.
    private let entries = Mutex<[Entry]>([])
    private let counters = Mutex<(hits: Int, misses: Int)>((0, 0))

    /// A cache of at most `capacity` chains (16 by default: one enclave rotates its leaf daily, a client
    /// may talk to a few enclaves).
    public init(capacity: Int = 16) {
        self.capacity = max(1, capacity)
    }

    /// How many lookups found a chain valid at their time, and how many did not.
    public var statistics: (hits: Int, misses: Int) { counters.withLock { $0 } }

    /// The cache key of a leaf and bundle under a pinned root: each DER length-prefixed, so no two
    /// different lists share a key.
    static func key(leaf: [UInt8], bundle: [[UInt8]], pinnedRootSHA256: [UInt8]) -> [UInt8] {
        var material = pinnedRootSHA256
        for der in bundle + [leaf] {
            let length = UInt32(der.count)
            material += [
                UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff),
            ]
            material += der
        }
        return SHA256.hash(data: material)
    }

    /// The leaf key of a chain verified before, if its whole path is valid at `date`.
    func leafKey(for key: [UInt8], at date: Date) -> P384.Signing.PublicKey? {
        let found = entries.withLock { entries -> P384.Signing.PublicKey? in
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry.validFrom <= date && date <= entry.validUntil ? entry.leafKey : nil
        }
        counters.withLock { found == nil ? ($0.misses += 1) : ($0.hits += 1) }
        return found
    }

    /// Records a chain just verified: `path` is the verified path, leaf first.
    func insert(key: [UInt8], leafKey: P384.Signing.PublicKey, path: [X509Certificate]) {
        guard let validFrom = path.map(\.notBefore).max(), let validUntil = path.map(\.notAfter).min() else { return }
        let entry = Entry(key: key, leafKey: leafKey, validFrom: validFrom, validUntil: validUntil)
        entries.withLock { entries in
            entries.removeAll { $0.key == key }
            entries.append(entry)
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }
}
