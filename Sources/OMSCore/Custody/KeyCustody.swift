import Foundation
import OMSProtocol
import WalletCrypto

/// Keeps wallet private keys sealed at rest: AES-256-GCM under the core's key-encryption key (KEK),
/// with the wallet id as associated data so a sealed key cannot be moved to another wallet's row.
///
/// Sealed form: `nonce (12) || ciphertext || tag (16)`. Plaintext keys exist only in `SecretBytes` for
/// the duration of a call.
public final class KeyCustody: Sendable {
    private let kek: SecretBytes

    public init(keyEncryptionKey: SecretBytes) throws {
        guard keyEncryptionKey.count == 32 else {
            throw WaasError(.internalCrypto, "key-encryption key must be 32 bytes")
        }
        self.kek = keyEncryptionKey
    }

    /// Loads the KEK of a home, creating it (0600) when `create` is set and it does not exist.
    public static func load(home: CoreHome, create: Bool) throws -> KeyCustody {
        let url = home.keyEncryptionKeyURL
        if !FileManager.default.fileExists(atPath: url.path) {
            guard create else { throw CoreHomeError("\(url.path) is missing: run 'walletops core init' first") }
            let fresh = SecretBytes.random(count: 32)
            try fresh.withUnsafeBytes { try CoreHome.writePrivateFile(Array($0), to: url) }
        }
        var bytes = try [UInt8](Data(contentsOf: url))
        defer { SecretBytes.wipe(&bytes) }
        guard bytes.count == 32 else {
            throw CoreHomeError("\(url.path) is not a 32-byte key (found \(bytes.count) bytes)")
        }
        return try KeyCustody(keyEncryptionKey: SecretBytes(bytes))
    }

    /// Seals a private key for the row of `walletId`.
    public func seal(_ key: SecretBytes, for walletId: String) throws -> [UInt8] {
        // A nonce is not secret: plain random bytes, no secret buffer to allocate and wipe.
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<AESGCM.nonceSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let sealed = try key.withUnsafeBytes { plaintext in
            try AESGCM.seal(plaintext, key: kek, nonce: nonce, authenticating: Array(walletId.utf8))
        }
        return nonce + sealed
    }

    /// A sealer for many keys in a row on one thread: the KEK's AES key schedule is set up once, not per
    /// key (the bulk create path seals up to a thousand keys per request).
    func sealer() throws -> Sealer { Sealer(context: try AESGCM.Context(key: kek)) }

    /// Seals keys under the KEK with the same form as ``seal(_:for:)``; not for concurrent use.
    struct Sealer {
        let context: AESGCM.Context

        /// `nonce || ciphertext || tag` of `key` for the row of `walletId`; `nonce` must be 12 fresh
        /// random bytes (random 96-bit nonces under one key, as ``KeyCustody/seal(_:for:)`` uses).
        func seal(_ key: SecretBytes, nonce: [UInt8], for walletId: String) throws -> [UInt8] {
            let sealed = try key.withUnsafeBytes { plaintext in
                try context.seal(plaintext, nonce: nonce, authenticating: Array(walletId.utf8))
            }
            return nonce + sealed
        }
    }

    /// Opens a sealed key; fails if it was sealed for another wallet or altered.
    public func open(_ sealed: [UInt8], for walletId: String) throws -> SecretBytes {
        guard sealed.count > AESGCM.nonceSize + AESGCM.tagSize else {
            throw WaasError(.internalCrypto, "sealed key for \(walletId) is truncated")
        }
        var plaintext = try AESGCM.open(
            Array(sealed[AESGCM.nonceSize...]), key: kek, nonce: Array(sealed[..<AESGCM.nonceSize]),
            authenticating: Array(walletId.utf8))
        defer { SecretBytes.wipe(&plaintext) }
        return SecretBytes(plaintext)
    }
}
