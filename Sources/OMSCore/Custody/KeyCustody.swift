import Foundation
import HomeLayout
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
            throw WaasError(.encryptionError, "key-encryption key must be 32 bytes")
        }
        self.kek = keyEncryptionKey
    }

    /// Loads the KEK of a home, creating it (0600) when `create` is set and it does not exist.
    public static func load(home: WalletHome, create: Bool) throws -> KeyCustody {
        let url = home.keyEncryptionKeyURL
        if !FileManager.default.fileExists(atPath: url.path) {
            guard create else { throw CoreHomeError("\(url.path) is missing: run 'walletops core init' first") }
            let fresh = SecretBytes.random(count: 32)
            try fresh.withUnsafeBytes { try WalletHome.writePrivateFile(Array($0), to: url) }
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
        // A nonce is not secret: plain random bytes, no secret buffer to allocate and wipe. Two 64-bit
        // draws (each a getrandom call) rather than one per byte.
        var generator = SystemRandomNumberGenerator()
        let words = (generator.next() as UInt64, generator.next() as UInt64)
        let nonce = withUnsafeBytes(of: words) { Array($0.prefix(AESGCM.nonceSize)) }
        let sealed = try key.withUnsafeBytes { plaintext in
            try AESGCM.seal(plaintext, key: kek, nonce: nonce, authenticating: Array(walletId.utf8))
        }
        return nonce + sealed
    }

    /// A keyed sealer for many keys on one thread (a batch's chunk): the KEK's AES key schedule is set up
    /// once instead of per key. Seals exactly as ``seal(_:for:)``.
    final class Sealer {
        private let context: AESGCM.Context
        private var generator = SystemRandomNumberGenerator()

        fileprivate init(kek: SecretBytes) throws { context = try AESGCM.Context(key: kek) }

        func seal(_ key: SecretBytes, for walletId: String) throws -> [UInt8] {
            let words = (generator.next() as UInt64, generator.next() as UInt64)
            return try seal(
                key, nonce: withUnsafeBytes(of: words) { Array($0.prefix(AESGCM.nonceSize)) }, for: walletId)
        }

        /// `nonce || ciphertext || tag` of `key` for the row of `walletId`, with a nonce the caller drew
        /// (12 fresh random bytes: the bulk create draws every random byte of a chunk at once).
        func seal(_ key: SecretBytes, nonce: [UInt8], for walletId: String) throws -> [UInt8] {
            let sealed = try key.withUnsafeBytes { plaintext in
                try context.seal(plaintext, nonce: nonce, authenticating: Array(walletId.utf8))
            }
            return nonce + sealed
        }
    }

    /// A sealer for one thread's use.
    func sealer() throws -> Sealer { try Sealer(kek: kek) }

    /// Opens a sealed key; fails if it was sealed for another wallet or altered.
    public func open(_ sealed: [UInt8], for walletId: String) throws -> SecretBytes {
        guard sealed.count > AESGCM.nonceSize + AESGCM.tagSize else {
            throw WaasError(.encryptionError, "sealed key for \(walletId) is truncated")
        }
        var plaintext = try AESGCM.open(
            Array(sealed[AESGCM.nonceSize...]), key: kek, nonce: Array(sealed[..<AESGCM.nonceSize]),
            authenticating: Array(walletId.utf8))
        defer { SecretBytes.wipe(&plaintext) }
        return SecretBytes(plaintext)
    }
}
