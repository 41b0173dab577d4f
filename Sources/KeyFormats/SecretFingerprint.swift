import WalletCrypto

/// A keyed digest of a validated secret for finding repeated keys without deriving addresses:
/// HMAC-SHA-256 ([RFC 2104](https://www.rfc-editor.org/rfc/rfc2104)) under a random key of one
/// ``SecretFingerprinter``, over a type tag and the canonical 32 secret bytes.
///
/// Without the fingerprinter's key, which is never stored or shown, the digest says nothing about the
/// secret; the same key of the same type gives the same fingerprint within one fingerprinter only.
/// `description` shows nothing.
public struct SecretFingerprint: Sendable, Hashable, CustomStringConvertible {
    // The 32 digest bytes as four words: cheap to hash and compare, 32 bytes with no allocation.
    let words: (UInt64, UInt64, UInt64, UInt64)

    init(_ digest: [UInt8]) {
        precondition(digest.count == 32)
        func word(_ offset: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in offset..<(offset + 8) { value = value << 8 | UInt64(digest[index]) }
            return value
        }
        words = (word(0), word(8), word(16), word(24))
    }

    public static func == (lhs: SecretFingerprint, rhs: SecretFingerprint) -> Bool {
        lhs.words == rhs.words
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    public var description: String { "SecretFingerprint(redacted)" }
}

/// Makes ``SecretFingerprint``s under a fresh random 32-byte key, held only in memory.
///
/// One per run: fingerprints of two fingerprinters never compare, and a fingerprint kept after the run
/// (it should not be) cannot be tested against guessed keys without the key, which dies with the process.
/// Confined to one task (its HMAC state is not Sendable).
public struct SecretFingerprinter {
    /// The keyed state before any input, copied for each digest (cheaper than keying each time).
    private let keyed: HMAC

    /// A fingerprinter with a fresh random key.
    public init() {
        keyed = HMAC(key: SecretBytes.random(count: 32))
    }

    /// The fingerprint of `secret`: HMAC over the type tag (`ethereum\0`, `solana\0`) and the 32 bytes.
    public func fingerprint(_ secret: ValidatedSecret) -> SecretFingerprint {
        var mac = keyed
        mac.update(data: Array(secret.type.rawValue.utf8) + [0])
        secret.secret.withUnsafeBytes { mac.update(data: $0) }
        return SecretFingerprint(mac.finalize())
    }
}
