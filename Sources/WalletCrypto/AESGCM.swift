import Foundation

/// AES-GCM (NIST SP 800-38D) with a 12-byte nonce and a 16-byte tag; AES-128 or AES-256 by key size.
///
/// Sealed output is `ciphertext || tag`. For many messages under one key, `AESGCM.Context` keeps the
/// key schedule and skips per-call setup.
public enum AESGCM: AEADConstruction {
    /// A keyed AES-GCM context to seal or open many messages; not for concurrent use.
    public final class Context: AEADContext {
        /// Keys a context: AES-128 for a 16-byte key, AES-256 for a 32-byte key.
        public init(key: SecretBytes) throws {
            switch key.count {
            case 16: super.init(try AEADCipherContext(.aes128GCM, key: key))
            case 32: super.init(try AEADCipherContext(.aes256GCM, key: key))
            default: throw CryptoError(.invalidKey, "AES-GCM: the key must be 16 or 32 bytes, got \(key.count)")
            }
        }
    }

    /// Keys a context; throws `CryptoError.invalidKey` unless the key is 16 or 32 bytes.
    public static func context(key: SecretBytes) throws -> Context { try Context(key: key) }
}
