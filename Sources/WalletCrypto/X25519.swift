internal import COpenSSL
import Foundation

/// X25519 Diffie-Hellman (RFC 7748 section 5).
public enum X25519 {
    /// An X25519 private key.
    public final class PrivateKey: Sendable {
        let key: OpenSSL.Key
        /// The matching public key.
        public let publicKey: PublicKey

        /// A fresh random key.
        public convenience init() throws {
            try self.init(rawRepresentation: SecretBytes.random(count: 32))
        }

        /// A key from its 32 raw bytes (clamped by X25519 itself, RFC 7748 section 5).
        ///
        /// - Throws: `CryptoError.invalidKey` unless the key is 32 bytes.
        public init(rawRepresentation: SecretBytes) throws {
            guard rawRepresentation.count == 32 else {
                throw CryptoError(.invalidKey, "X25519 private key: expected 32 bytes, got \(rawRepresentation.count)")
            }
            let pkey = withSecretBytes(rawRepresentation) {
                EVP_PKEY_new_raw_private_key_ex(nil, "X25519", nil, $0, $1)
            }
            guard let pkey else { throw OpenSSL.error(.invalidKey, "X25519 private key: OpenSSL rejected it") }
            key = OpenSSL.Key(pkey)
            var point = [UInt8](repeating: 0, count: 32)
            var length = 32
            guard EVP_PKEY_get_raw_public_key(pkey, &point, &length) == 1, length == 32 else {
                throw OpenSSL.error(.libraryFailure, "X25519: computing the public key failed")
            }
            publicKey = try PublicKey(rawRepresentation: point)
        }

        /// The 32 raw bytes.
        public var rawRepresentation: SecretBytes {
            SecretBytes(count: 32) { out in
                var length = 32
                guard
                    EVP_PKEY_get_raw_private_key(
                        key.pointer, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1
                else { fatalError("X25519: OpenSSL lost the private key") }
            }
        }

        /// X25519(k, u): the 32-byte shared secret.
        ///
        /// - Throws: `CryptoError.invalidKey` when the result is all zeros (a small-order peer key).
        public func sharedSecret(with publicKey: PublicKey) throws -> SecretBytes {
            guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
                throw OpenSSL.error(.libraryFailure, "X25519: no context")
            }
            defer { EVP_PKEY_CTX_free(ctx) }
            guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer_ex(ctx, publicKey.key.pointer, 0) == 1 else {
                throw OpenSSL.error(.libraryFailure, "X25519: setup failed")
            }
            let secret = try SecretBytes(count: 32) { out in
                var length = 32
                // OpenSSL fails the derivation when the output is all zeros (RFC 7748 section 6.1).
                guard EVP_PKEY_derive(ctx, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1,
                    length == 32
                else {
                    OpenSSL.clearErrors()
                    throw CryptoError(.invalidKey, "X25519: the peer public key has small order (all-zero secret)")
                }
            }
            guard secret != SecretBytes([UInt8](repeating: 0, count: 32)) else {
                throw CryptoError(.invalidKey, "X25519: the peer public key has small order (all-zero secret)")
            }
            return secret
        }
    }

    /// An X25519 public key: 32 raw bytes, the u-coordinate.
    public final class PublicKey: Sendable, Equatable {
        let key: OpenSSL.Key
        /// The 32 raw bytes.
        public let rawRepresentation: [UInt8]

        /// A key from its 32 raw bytes.
        ///
        /// - Throws: `CryptoError.invalidKey` unless the key is 32 bytes.
        public init(rawRepresentation: some ContiguousBytes) throws {
            let bytes = rawRepresentation.withUnsafeBytes { Array($0) }
            guard bytes.count == 32 else {
                throw CryptoError(.invalidKey, "X25519 public key: expected 32 bytes, got \(bytes.count)")
            }
            guard let pkey = EVP_PKEY_new_raw_public_key_ex(nil, "X25519", nil, bytes, 32) else {
                throw OpenSSL.error(.invalidKey, "X25519 public key: OpenSSL rejected it")
            }
            key = OpenSSL.Key(pkey)
            self.rawRepresentation = bytes
        }

        /// Equal when the raw bytes are equal.
        public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
            lhs.rawRepresentation == rhs.rawRepresentation
        }
    }
}
