import OMSProtocol
import WalletCrypto

/// Reads the private key of an import in the forms OMS-REFERENCE "Import" accepts. Errors say what is
/// wrong with the form, never any byte of the key.
///
/// - Ethereum: 32 raw bytes, or 64 hex digits with an optional `0x`, ASCII whitespace trimmed; a
///   secp256k1 scalar in [1, n-1].
/// - Solana: a 32-byte seed or a 64-byte keypair (whose public half must match the seed), raw or base58
///   (whitespace trimmed). Base58 text of exactly 32 or 64 characters is refused: it is ambiguous with
///   raw bytes.
enum ImportedKeyParser {
    static func ethereum(_ plaintext: SecretBytes) throws(WaasError) -> Secp256k1.PrivateKey {
        let scalar: SecretBytes
        if plaintext.count == 32 {
            scalar = plaintext
        } else {
            var digits = trimmed(plaintext)
            defer { SecretBytes.wipe(&digits) }
            // Skipped by offset, not removed: removing would leave bytes past the end that the wipe misses.
            let prefixed =
                digits.count == 66 && digits[0] == UInt8(ascii: "0") && digits[1] | 0x20 == UInt8(ascii: "x")
            let start = prefixed ? 2 : 0
            guard digits.count - start == 64, digits[start...].allSatisfy({ nibble($0) != nil }) else {
                throw WaasError(
                    .invalidRequest, "an Ethereum key must be 32 bytes or 64 hex digits (optional 0x)")
            }
            scalar = SecretBytes(count: 32) { out in
                for i in 0..<32 {
                    out[i] = nibble(digits[start + 2 * i])! << 4 | nibble(digits[start + 2 * i + 1])!
                }
            }
        }
        do {
            return try Secp256k1.PrivateKey(scalar)
        } catch {
            throw WaasError(.invalidRequest, "the Ethereum key is not a secp256k1 scalar in [1, n-1]")
        }
    }

    /// A Solana key as an import keeps it: the seed (sealed) and its public key (the address).
    struct SolanaKey {
        let seed: SecretBytes
        let publicKey: Ed25519.PublicKey
    }

    /// A Solana key read but not yet derived: its seed, and a keypair's public half (a claim to check).
    struct SolanaSeed {
        let seed: SecretBytes
        let claimedPublicKey: [UInt8]?
    }

    /// The public key comes from WalletCrypto's Swift derivation (`Ed25519.publicKey(seed:)`), about 12%
    /// cheaper than libsodium's `crypto_sign_seed_keypair` and byte for byte the same; signing stays
    /// libsodium. Many keys at once: ``solanaSeed(_:)``, one `Ed25519.publicKeys(seeds:)` call, then
    /// ``solanaKey(_:derived:)`` per key.
    static func solana(_ plaintext: SecretBytes) throws(WaasError) -> SolanaKey {
        let read = try solanaSeed(plaintext)
        return try solanaKey(read, derived: publicKey(seed: read.seed))
    }

    /// Reads a Solana key's seed (and a keypair's claimed public half) without deriving anything.
    static func solanaSeed(_ plaintext: SecretBytes) throws(WaasError) -> SolanaSeed {
        var raw: SecretBytes = plaintext
        if plaintext.count != 32, plaintext.count != 64 {
            var text = trimmed(plaintext)
            defer { SecretBytes.wipe(&text) }
            guard text.count != 32, text.count != 64 else {
                throw WaasError(
                    .invalidRequest, "a base58 Solana key of \(text.count) characters is ambiguous with raw bytes")
            }
            // The base58 text passes through a String and Base58's working buffers, which cannot be wiped.
            guard text.allSatisfy({ $0 < 0x80 }),
                var decoded = try? Base58.decode(String(decoding: text, as: UTF8.self))
            else { throw WaasError(.invalidRequest, "a Solana key must be 32 or 64 bytes, raw or base58") }
            defer { SecretBytes.wipe(&decoded) }
            raw = SecretBytes(decoded)
        }
        switch raw.count {
        case 32:
            return SolanaSeed(seed: raw, claimedPublicKey: nil)
        case 64:
            let seed = SecretBytes(count: 32) { out in
                raw.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<32])) }
            }
            return SolanaSeed(seed: seed, claimedPublicKey: raw.withUnsafeBytes { Array($0[32..<64]) })
        default:
            throw WaasError(.invalidRequest, "a Solana key must be a 32-byte seed or a 64-byte keypair")
        }
    }

    /// The key of `read` given its seed's public key: a keypair's public half is only a claim, compared
    /// with the derived one in constant time.
    static func solanaKey(_ read: SolanaSeed, derived: Ed25519.PublicKey) throws(WaasError) -> SolanaKey {
        if let claimed = read.claimedPublicKey {
            let matches = claimed.withUnsafeBytes { claim in
                derived.rawRepresentation.withUnsafeBytes { constantTimeEquals(claim, $0) }
            }
            guard matches else {
                throw WaasError(.invalidRequest, "the Solana keypair's public half does not match its seed")
            }
        }
        return SolanaKey(seed: read.seed, publicKey: derived)
    }

    /// The public key of a seed known to be 32 bytes.
    private static func publicKey(seed: SecretBytes) -> Ed25519.PublicKey {
        // The only error is a seed length other than 32, ruled out by the callers.
        try! Ed25519.publicKey(seed: seed)
    }

    /// The bytes without leading and trailing ASCII whitespace.
    private static func trimmed(_ secret: SecretBytes) -> [UInt8] {
        secret.withUnsafeBytes { raw in
            let isSpace: (UInt8) -> Bool = { [0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d].contains($0) }
            guard let start = raw.firstIndex(where: { !isSpace($0) }), let end = raw.lastIndex(where: { !isSpace($0) })
            else { return [] }
            return Array(raw[start...end])
        }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
