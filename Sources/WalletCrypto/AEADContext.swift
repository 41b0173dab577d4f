import Foundation

/// An AEAD with a 12-byte nonce and a 16-byte tag whose sealed output is `ciphertext || tag`:
/// `AESGCM` or `ChaChaPoly`.
///
/// The two differ only in the cipher their `Context` keys, so one-shot sealing and opening are written
/// once here; for many messages under one key, keep a `Context`, which keeps the key schedule.
public protocol AEADConstruction {
    /// The keyed context of this construction.
    associatedtype Context: AEADContext

    /// Keys a context; throws `CryptoError.invalidKey` for a key size the construction does not take.
    static func context(key: SecretBytes) throws -> Context
}

extension AEADConstruction {
    /// Nonce size in bytes.
    public static var nonceSize: Int { AEADCipherContext.nonceSize }
    /// Tag size in bytes.
    public static var tagSize: Int { AEADCipherContext.tagSize }

    /// Encrypts and authenticates `plaintext` and `aad`; returns `ciphertext || tag`.
    ///
    /// - Throws: `CryptoError.invalidKey` for a key size the construction does not take;
    ///   `.invalidParameter` unless the nonce is 12 bytes. Never reuse a nonce under the same key.
    public static func seal(
        _ plaintext: some ContiguousBytes, key: SecretBytes, nonce: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        try context(key: key).seal(plaintext, nonce: nonce, authenticating: aad)
    }

    /// Checks and decrypts `ciphertext || tag`.
    ///
    /// - Throws: `CryptoError.authenticationFailure` when the tag does not match.
    public static func open(
        _ sealed: some ContiguousBytes, key: SecretBytes, nonce: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        try context(key: key).open(sealed, nonce: nonce, authenticating: aad)
    }
}

/// An AEAD context keyed once, to seal or open many messages; not for concurrent use.
///
/// `AESGCM.Context` and `ChaChaPoly.Context` choose the cipher from the key; sealing and opening are
/// the same for both.
public class AEADContext {
    let cipher: AEADCipherContext

    init(_ cipher: AEADCipherContext) { self.cipher = cipher }

    /// Encrypts and authenticates; returns `ciphertext || tag`.
    public final func seal(
        _ plaintext: some ContiguousBytes, nonce: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        try cipher.seal(plaintext, nonce: nonce, aad: aad)
    }

    /// Checks and decrypts `ciphertext || tag`.
    public final func open(
        _ sealed: some ContiguousBytes, nonce: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        try cipher.open(sealed, nonce: nonce, aad: aad)
    }
}

@available(*, unavailable)
extension AEADContext: Sendable {}
