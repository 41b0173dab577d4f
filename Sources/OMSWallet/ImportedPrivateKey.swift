import OMSProtocol
import WalletCrypto

/// A private key to import, in one of the forms the OMS page lists. The key is held as `SecretBytes`
/// and never shown; it is checked when `importWallet` runs.
///
/// - Ethereum: 32 raw bytes, or 64 hex digits with an optional `0x` (ASCII whitespace trimmed); a
///   secp256k1 scalar in [1, n-1].
/// - Solana: a 32-byte seed or a 64-byte keypair (its public half must match the seed), as raw bytes or
///   the base58 text of either. Base58 text of exactly 32 or 64 characters is refused as ambiguous.
public struct ImportedPrivateKey: Sendable, CustomStringConvertible {
    enum Form: Sendable {
        case text, bytes
    }

    /// `evm` or `solana`.
    public let networkFamily: NetworkFamily
    let form: Form
    let material: SecretBytes

    /// An Ethereum key as 64 hex digits, optionally `0x`-prefixed.
    public static func ethereum(_ hex: String) -> ImportedPrivateKey {
        ImportedPrivateKey(networkFamily: .evm, form: .text, material: SecretBytes(Array(hex.utf8)))
    }

    /// An Ethereum key as 32 raw bytes.
    public static func ethereum(_ bytes: [UInt8]) -> ImportedPrivateKey {
        ImportedPrivateKey(networkFamily: .evm, form: .bytes, material: SecretBytes(bytes))
    }

    /// An Ethereum key as 32 raw secret bytes.
    public static func ethereum(_ bytes: SecretBytes) -> ImportedPrivateKey {
        ImportedPrivateKey(networkFamily: .evm, form: .bytes, material: bytes)
    }

    /// A Solana seed or keypair as base58 text.
    public static func solana(_ base58: String) -> ImportedPrivateKey {
        ImportedPrivateKey(networkFamily: .solana, form: .text, material: SecretBytes(Array(base58.utf8)))
    }

    /// A Solana 32-byte seed or 64-byte keypair as raw bytes.
    public static func solana(_ bytes: [UInt8]) -> ImportedPrivateKey {
        ImportedPrivateKey(networkFamily: .solana, form: .bytes, material: SecretBytes(bytes))
    }

    /// A Solana 32-byte seed or 64-byte keypair as raw secret bytes.
    public static func solana(_ bytes: SecretBytes) -> ImportedPrivateKey {
        ImportedPrivateKey(networkFamily: .solana, form: .bytes, material: bytes)
    }

    /// Never shows the key.
    public var description: String { "ImportedPrivateKey(\(networkFamily), redacted)" }

    /// Why a key is refused: the form, never a byte of the key.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// The key as the import transport sends it: Ethereum 32 bytes; Solana a 32-byte seed or 64-byte
    /// keypair.
    func normalized() throws(Invalid) -> SecretBytes {
        switch networkFamily {
        case .evm: return try ethereumScalar()
        case .solana: return try solanaKey()
        case .unknown(let name): throw Invalid(description: "network family \(name) is not supported")
        }
    }

    private func ethereumScalar() throws(Invalid) -> SecretBytes {
        let scalar: SecretBytes
        switch form {
        case .bytes:
            guard material.count == 32 else {
                throw Invalid(description: "an Ethereum key must be 32 bytes, got \(material.count)")
            }
            scalar = material
        case .text:
            var digits = Self.trimmed(material)
            defer { SecretBytes.wipe(&digits) }
            if digits.count == 66, digits[0] == UInt8(ascii: "0"), digits[1] | 0x20 == UInt8(ascii: "x") {
                digits.removeFirst(2)
            }
            guard digits.count == 64, digits.allSatisfy({ Self.nibble($0) != nil }) else {
                throw Invalid(description: "an Ethereum key must be 64 hex digits with an optional 0x")
            }
            scalar = SecretBytes(count: 32) { out in
                for i in 0..<32 { out[i] = Self.nibble(digits[2 * i])! << 4 | Self.nibble(digits[2 * i + 1])! }
            }
        }
        guard (try? Secp256k1.PrivateKey(scalar)) != nil else {
            throw Invalid(description: "the Ethereum key is not a secp256k1 scalar in [1, n-1]")
        }
        return scalar
    }

    private func solanaKey() throws(Invalid) -> SecretBytes {
        let raw: SecretBytes
        switch form {
        case .bytes:
            raw = material
        case .text:
            var text = Self.trimmed(material)
            defer { SecretBytes.wipe(&text) }
            guard text.count != 32, text.count != 64 else {
                throw Invalid(
                    description: "a base58 Solana key of \(text.count) characters is ambiguous with raw bytes")
            }
            guard text.allSatisfy({ $0 < 0x80 }),
                var decoded = try? Base58.decode(String(decoding: text, as: UTF8.self))
            else { throw Invalid(description: "a Solana key must be base58 text of a 32-byte seed or 64-byte keypair") }
            defer { SecretBytes.wipe(&decoded) }
            raw = SecretBytes(decoded)
        }
        switch raw.count {
        case 32:
            guard (try? Ed25519.PrivateKey(seed: raw)) != nil else {
                throw Invalid(description: "the Solana seed is not valid")
            }
        case 64:
            guard (try? Ed25519.PrivateKey(keypair: raw)) != nil else {
                throw Invalid(description: "the Solana keypair's public half does not match its seed")
            }
        default:
            throw Invalid(
                description: "a Solana key must be a 32-byte seed or a 64-byte keypair, got \(raw.count) bytes")
        }
        return raw
    }

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
