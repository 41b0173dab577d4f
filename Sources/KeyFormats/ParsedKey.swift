public import WalletCrypto

/// A validated private key ready for import: its type, the key object, and the derived address.
///
/// The secret lives only in `SecretBytes` inside the key object (wiped when the last copy goes);
/// `description` shows the type and address, never the key.
public struct ParsedKey: Sendable, CustomStringConvertible {
    /// The key object, by curve.
    public enum PrivateKey: Sendable {
        /// A secp256k1 scalar in [1, n-1].
        case ethereum(Secp256k1.PrivateKey)
        /// An Ed25519 key (seed and its public key).
        case solana(Ed25519.PrivateKey)
    }

    /// The key object.
    public let privateKey: PrivateKey
    /// The derived address: EIP-55 checksummed for Ethereum, base58 of the public key for Solana.
    public let address: String
    /// The duplicate-detection fingerprint (a hash of the address, never of the key).
    public let fingerprint: KeyFingerprint

    /// Wraps a secp256k1 key.
    public init(ethereum key: Secp256k1.PrivateKey) {
        privateKey = .ethereum(key)
        address = key.ethereumAddress.checksummed
        fingerprint = KeyFingerprint(ethereum: key.ethereumAddress)
    }

    /// Wraps an Ed25519 key.
    public init(solana key: Ed25519.PrivateKey) {
        privateKey = .solana(key)
        address = key.solanaAddress
        fingerprint = KeyFingerprint(solana: key.publicKey)
    }

    /// `ethereum` or `solana`.
    public var type: KeyType {
        switch privateKey {
        case .ethereum: .ethereum
        case .solana: .solana
        }
    }

    /// The 32 secret bytes an import sends: the secp256k1 scalar, or the Ed25519 seed.
    public var secret: SecretBytes {
        switch privateKey {
        case .ethereum(let key): key.secretBytes
        case .solana(let key): key.seed
        }
    }

    public var description: String { "ParsedKey(\(type), address: \(address), redacted)" }
}
