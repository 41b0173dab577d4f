import Foundation

/// ChaCha20-Poly1305 AEAD (RFC 8439, the IETF variant: 32-byte key, 12-byte nonce, 16-byte tag).
///
/// Sealed output is `ciphertext || tag`.
public enum ChaChaPoly {
    /// Nonce size in bytes.
    public static let nonceSize = 12
    /// Tag size in bytes.
    public static let tagSize = 16

    /// Encrypts and authenticates `plaintext` and `aad`; returns `ciphertext || tag`.
    ///
    /// - Throws: `CryptoError.invalidKey` unless the key is 32 bytes; `.invalidParameter` unless the nonce is 12 bytes.
    public static func seal(
        _ plaintext: some ContiguousBytes, key: SecretBytes, nonce: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        try Context(key: key).seal(plaintext, nonce: nonce, authenticating: aad)
    }

    /// Checks and decrypts `ciphertext || tag`.
    ///
    /// - Throws: `CryptoError.authenticationFailure` when the tag does not match.
    public static func open(
        _ sealed: some ContiguousBytes, key: SecretBytes, nonce: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        try Context(key: key).open(sealed, nonce: nonce, authenticating: aad)
    }

    /// A keyed ChaCha20-Poly1305 context to seal or open many messages; not for concurrent use.
    public final class Context {
        let cipher: AEADCipherContext

        /// Keys a context with a 32-byte key.
        public init(key: SecretBytes) throws {
            cipher = try AEADCipherContext(.chaCha20Poly1305, key: key)
        }

        /// Encrypts and authenticates; returns `ciphertext || tag`.
        public func seal(
            _ plaintext: some ContiguousBytes, nonce: some ContiguousBytes,
            authenticating aad: some ContiguousBytes = [UInt8]()
        ) throws -> [UInt8] {
            try cipher.seal(plaintext, nonce: nonce, aad: aad)
        }

        /// Checks and decrypts `ciphertext || tag`.
        public func open(
            _ sealed: some ContiguousBytes, nonce: some ContiguousBytes,
            authenticating aad: some ContiguousBytes = [UInt8]()
        ) throws -> [UInt8] {
            try cipher.open(sealed, nonce: nonce, aad: aad)
        }
    }
}

@available(*, unavailable)
extension ChaChaPoly.Context: Sendable {}
