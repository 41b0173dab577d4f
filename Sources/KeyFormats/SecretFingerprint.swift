import WalletCrypto

/// A keyed digest of a validated secret for finding repeated keys without deriving addresses:
/// keyed BLAKE2b-256 ([RFC 7693](https://www.rfc-editor.org/rfc/rfc7693), WalletCrypto's `BLAKE2b`, libsodium's
/// `crypto_generichash`) under a random key of one ``SecretFingerprinter``, over a type tag and the
/// canonical 32 secret bytes.
///
/// Without the fingerprinter's key, which is never stored or shown, the digest says nothing about the
/// secret; the same key of the same type gives the same fingerprint within one fingerprinter only.
/// `description` shows nothing.
public struct SecretFingerprint: Sendable, Hashable, CustomStringConvertible {
    // The 32 digest bytes as four words: cheap to hash and compare, 32 bytes with no allocation.
    let words: (UInt64, UInt64, UInt64, UInt64)

    init(_ digest: UnsafeRawBufferPointer) {
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
/// BLAKE2b keyed in one call rather than HMAC-SHA-256: two compressions and no OpenSSL context copies per
/// key (the import fingerprints every row it sends). Confined to one task.
public struct SecretFingerprinter {
    private let key: SecretBytes

    /// A fingerprinter with a fresh random key.
    public init() {
        key = SecretBytes.random(count: BLAKE2b.keyByteCount)
    }

    /// The fingerprint of `secret`: keyed BLAKE2b-256 over the type tag (`ethereum\0`, `solana\0`) and
    /// the 32 bytes.
    public func fingerprint(_ secret: ValidatedSecret) -> SecretFingerprint {
        var tag = secret.type.rawValue
        return tag.withUTF8 { tag in
            let count = tag.count + 1 + secret.secret.count
            // The input holds the secret: built on the stack and wiped before it is released.
            return withUnsafeTemporaryAllocation(byteCount: count + 32, alignment: 16) { scratch in
                defer { SecretBytes.wipe(scratch.baseAddress, byteCount: scratch.count) }
                let input = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count])
                input.copyMemory(from: UnsafeRawBufferPointer(tag))
                input[tag.count] = 0
                secret.secret.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: input[(tag.count + 1)...]).copyMemory(from: $0)
                }
                let digest = UnsafeMutableRawBufferPointer(rebasing: scratch[count...])
                key.withUnsafeBytes { BLAKE2b.hash(UnsafeRawBufferPointer(input), key: $0, into: digest) }
                return SecretFingerprint(UnsafeRawBufferPointer(digest))
            }
        }
    }
}
