import TextFormats

/// A failure in the elliptic-curve and address code (secp256k1, Ed25519, EIP-55, EIP-191).
///
/// Messages say what was wrong and where, never the key bytes. Two errors are equal when their
/// codes are (STYLE.md "Types and errors").
public struct ECCError: CodedError, Sendable {
    /// What went wrong.
    public enum Code: Sendable, Equatable {
        /// A private key or seed has the wrong number of bytes.
        case invalidKeyLength
        /// A secp256k1 private key is zero.
        case privateKeyIsZero
        /// A secp256k1 private key is not below the curve order n.
        case privateKeyOutOfRange
        /// A 64-byte Ed25519 keypair whose public half does not match its seed.
        case keypairMismatch
        /// Public key bytes that are not a point on the curve or have the wrong length.
        case invalidPublicKey
        /// A digest that is not 32 bytes.
        case invalidDigestLength
        /// Signature bytes that cannot be parsed (length, recovery id, r or s out of range).
        case invalidSignature
        /// No public key could be recovered from the signature and digest.
        case recoveryFailed
        /// An address string or byte count that is not a valid Ethereum address.
        case invalidAddress
        /// A mixed-case address whose letters do not match its EIP-55 checksum.
        case checksumMismatch
    }

    /// What went wrong.
    public let code: Code
    /// A human-readable explanation naming the operation; never contains secret material.
    public let message: String

    /// An error with `code` and `message` (the message must not contain secrets).
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
