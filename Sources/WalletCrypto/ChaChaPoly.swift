import Foundation

/// ChaCha20-Poly1305 AEAD (RFC 8439, the IETF variant: 32-byte key, 12-byte nonce, 16-byte tag).
///
/// Sealed output is `ciphertext || tag`.
public enum ChaChaPoly: AEADConstruction {
    /// A keyed ChaCha20-Poly1305 context to seal or open many messages; not for concurrent use.
    public final class Context: AEADContext {
        /// Keys a context with a 32-byte key.
        public init(key: SecretBytes) throws {
            super.init(try AEADCipherContext(.chaCha20Poly1305, key: key))
        }
    }

    /// Keys a context; throws `CryptoError.invalidKey` unless the key is 32 bytes.
    public static func context(key: SecretBytes) throws -> Context { try Context(key: key) }
}
