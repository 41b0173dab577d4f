import KeyFormats
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

    /// The key as the import transport sends it: Ethereum the 32-byte scalar, Solana the 32-byte seed (a
    /// keypair's public half checked against it), validated by KeyFormats' one parser as the core does.
    func normalized() throws(Invalid) -> SecretBytes {
        guard let type = KeyType(networkFamily) else {
            throw Invalid(description: "network family \(networkFamily.rawValue) is not supported")
        }
        do {
            return try KeyParser.validateImport(material, type: type, encoding: form == .text ? .text : .raw).secret
        } catch {
            throw Invalid(description: error.reason)
        }
    }
}
