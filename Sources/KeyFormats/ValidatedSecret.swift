public import WalletCrypto

/// A private key checked against every import rule, with no address derived: the 32 canonical secret
/// bytes (the secp256k1 scalar, or the Ed25519 seed) and their type.
///
/// An import needs no client-side address (the core derives it): validating without deriving saves one
/// scalar multiplication per key (secp256k1: about 28 us). ``derived()`` computes the address when a
/// caller needs it, such as an `expected_address` check. `description` never shows the key.
public struct ValidatedSecret: Sendable, CustomStringConvertible {
    /// `ethereum` or `solana`.
    public let type: KeyType
    /// The 32 bytes an import sends: the scalar in [1, n-1], or the seed (a keypair's first half).
    public let secret: SecretBytes

    /// A secret the parser has validated.
    init(type: KeyType, secret: SecretBytes) {
        self.type = type
        self.secret = secret
    }

    /// The secret of a key already derived (keystores and keypair files derive to check their address).
    public init(_ key: ParsedKey) {
        type = key.type
        secret = key.secret
    }

    /// The key with its address: one scalar multiplication.
    ///
    /// - Throws: `KeyFormatError` only if the secret was not validated by this module (never for one
    ///   made by ``KeyParser/validate(_:type:encoding:)``).
    public func derived() throws(KeyFormatError) -> ParsedKey {
        switch type {
        case .ethereum: try KeyParser.ethereum(secret: secret)
        case .solana: try KeyParser.solana(secret: secret)
        }
    }

    public var description: String { "ValidatedSecret(\(type), redacted)" }
}
