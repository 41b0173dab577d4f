public import WalletCrypto

/// A stable, non-secret identity of a key for duplicate detection: SHA-256 over a domain tag, the
/// key type and the derived public address bytes, never over the key itself.
///
/// Two fingerprints are equal exactly when the keys have the same type and address, so a job can
/// say "the same key appeared on row 3 and row 9" while storing 32 bytes per key and no secret.
public struct KeyFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The 32-byte SHA-256 digest.
    public let bytes: [UInt8]

    /// The domain tag, so these digests never collide with another use of SHA-256 over addresses.
    static let domain = Array("walletops/KeyFormats/KeyFingerprint/v1".utf8) + [0]

    /// The fingerprint of an Ethereum key with this address (its 20 bytes).
    public init(ethereum address: EthereumAddress) {
        bytes = Self.digest(type: .ethereum, address.bytes)
    }

    /// The fingerprint of a Solana key with this public key (its 32 bytes).
    public init(solana publicKey: Ed25519.PublicKey) {
        bytes = Self.digest(type: .solana, publicKey.rawRepresentation)
    }

    /// A fingerprint from its 32 bytes, for one read back from a checkpoint.
    public init?(bytes: [UInt8]) {
        guard bytes.count == SHA256.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A fingerprint from its 64 hex digits, as `hex` writes it.
    public init?(hex: String) {
        guard let decoded = try? Base16.decode(hex) else { return nil }
        self.init(bytes: decoded)
    }

    /// Lowercase hex of the 32 bytes.
    public var hex: String { Base16.encode(bytes) }

    public var description: String { "KeyFingerprint(\(hex))" }

    private static func digest(type: KeyType, _ address: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: domain)
        hasher.update(data: Array(type.rawValue.utf8) + [0])
        hasher.update(data: address)
        return hasher.finalize()
    }
}
