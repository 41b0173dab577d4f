import Foundation

/// AES-GCM (NIST SP 800-38D) with a 12-byte nonce and a 16-byte tag; AES-128 or AES-256 by key size.
///
/// Sealed output is `ciphertext || tag`. For many messages under one key, `AESGCM.Context` keeps the
/// key schedule and skips per-call setup.
public enum AESGCM {
    /// Nonce size in bytes.
    public static let nonceSize = 12
    /// Tag size in bytes.
    public static let tagSize = 16

    /// Encrypts and authenticates `plaintext` and `aad`; returns `ciphertext || tag`.
    ///
    /// - Throws: `CryptoError.invalidKey` unless the key is 16 or 32 bytes; `.invalidParameter`
    ///   unless the nonce is 12 bytes. Never reuse a nonce under the same key.
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

    /// A keyed AES-GCM context to seal or open many messages; not for concurrent use.
    public final class Context {
        let cipher: AEADCipherContext

        /// Keys a context: AES-128 for a 16-byte key, AES-256 for a 32-byte key.
        public init(key: SecretBytes) throws {
            switch key.count {
            case 16: cipher = try AEADCipherContext(.aes128GCM, key: key)
            case 32: cipher = try AEADCipherContext(.aes256GCM, key: key)
            default: throw CryptoError(.invalidKey, "AES-GCM: the key must be 16 or 32 bytes, got \(key.count)")
            }
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
extension AESGCM.Context: Sendable {}
