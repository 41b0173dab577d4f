internal import CSodium
public import Foundation

/// Ed25519 signatures (RFC 8032) through libsodium, and Solana addresses (base58 of the public key).
///
/// See <https://www.rfc-editor.org/rfc/rfc8032> and <https://doc.libsodium.org/public-key_cryptography/public-key_signatures>.
public enum Ed25519 {
    /// Whether `signature` (64 bytes) over `message` verifies under `publicKey`.
    ///
    /// libsodium refuses non-canonical S and small-order public keys and R values.
    public static func verify(signature: some ContiguousBytes, message: some ContiguousBytes, publicKey: PublicKey)
        -> Bool
    {
        precondition(Sodium.ready, "sodium_init failed")
        return signature.withUnsafeBytes { sig in
            guard sig.count == 64 else { return false }
            return message.withUnsafeBytes { msg in
                publicKey.rawRepresentation.withUnsafeBufferPointer { pk in
                    crypto_sign_verify_detached(
                        sig.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        msg.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(msg.count), pk.baseAddress!)
                        == 0
                }
            }
        }
    }
}

extension Ed25519 {
    /// An Ed25519 public key: 32 bytes, compressed Edwards point.
    public struct PublicKey: Sendable, Hashable, CustomStringConvertible {
        /// The 32 key bytes.
        public let rawRepresentation: [UInt8]

        /// A public key from 32 bytes (whether it is a valid point is checked when verifying).
        ///
        /// - Throws: `ECCError.Code.invalidPublicKey` for any other length.
        public init(rawRepresentation: some ContiguousBytes) throws(ECCError) {
            let raw = rawRepresentation.withUnsafeBytes { Array($0) }
            guard raw.count == 32 else {
                throw ECCError(.invalidPublicKey, "Ed25519 public key: expected 32 bytes, got \(raw.count)")
            }
            self.rawRepresentation = raw
        }

        init(validated raw: [UInt8]) { rawRepresentation = raw }

        /// The Solana address: base58 of the 32 key bytes.
        public var solanaAddress: String { Base58.encode(rawRepresentation) }

        /// Whether `signature` over `message` verifies under this key.
        public func isValidSignature(_ signature: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
            Ed25519.verify(signature: signature, message: message, publicKey: self)
        }

        public var description: String { "Ed25519.PublicKey(\(solanaAddress))" }
    }
}

extension Ed25519 {
    /// An Ed25519 private key, held as libsodium's 64-byte form (seed || public key) in `SecretBytes`.
    public struct PrivateKey: Sendable, CustomStringConvertible {
        /// seed (32) || public key (32), libsodium's `crypto_sign` secret key.
        let keypair: SecretBytes
        /// The matching public key.
        public let publicKey: PublicKey

        /// Derives the key pair from a 32-byte RFC 8032 seed.
        ///
        /// - Throws: `ECCError.Code.invalidKeyLength` if the seed is not 32 bytes.
        public init(seed: SecretBytes) throws(ECCError) {
            guard seed.count == 32 else {
                throw ECCError(.invalidKeyLength, "Ed25519 seed: expected 32 bytes, got \(seed.count)")
            }
            precondition(Sodium.ready, "sodium_init failed")
            var pk = [UInt8](repeating: 0, count: 32)
            keypair = SecretBytes(count: 64) { sk in
                seed.withUnsafeBytes { s in
                    _ = crypto_sign_seed_keypair(
                        &pk, sk.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        s.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            publicKey = PublicKey(validated: pk)
        }

        /// Accepts a 64-byte keypair (seed || public key, the Solana CLI / libsodium layout) after checking
        /// that the public half is the one the seed derives.
        ///
        /// - Throws: `ECCError` `.invalidKeyLength` (not 64 bytes) or `.keypairMismatch`.
        public init(keypair: SecretBytes) throws(ECCError) {
            guard keypair.count == 64 else {
                throw ECCError(.invalidKeyLength, "Ed25519 keypair: expected 64 bytes, got \(keypair.count)")
            }
            // libsodium's sk_to_pk only copies bytes 32..<64, so recompute from the seed and compare.
            let seed = SecretBytes(count: 32) { out in
                keypair.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<32])) }
            }
            try self.init(seed: seed)
            let matches = keypair.withUnsafeBytes { raw in
                publicKey.rawRepresentation.withUnsafeBytes { derived in
                    constantTimeEquals(UnsafeRawBufferPointer(rebasing: raw[32..<64]), derived)
                }
            }
            guard matches else {
                throw ECCError(
                    .keypairMismatch,
                    "Ed25519 keypair: the public key half does not match the one derived from the seed")
            }
        }

        /// A fresh random key from the system CSPRNG.
        public static func generate() -> PrivateKey {
            // A 32-byte seed is always valid.
            try! PrivateKey(seed: SecretBytes.random(count: 32))
        }

        /// The 32-byte RFC 8032 seed. Handle with care.
        public var seed: SecretBytes {
            SecretBytes(count: 32) { out in
                keypair.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<32])) }
            }
        }

        /// The 64-byte seed || public key form (Solana CLI keypair files). Handle with care.
        public var keypairBytes: SecretBytes { keypair }

        /// The Solana address of the public key.
        public var solanaAddress: String { publicKey.solanaAddress }

        /// The 64-byte Ed25519 signature of `message` (deterministic, RFC 8032).
        public func signature(for message: some ContiguousBytes) -> [UInt8] {
            var signature = [UInt8](repeating: 0, count: 64)
            message.withUnsafeBytes { msg in
                keypair.withUnsafeBytes { sk in
                    _ = crypto_sign_detached(
                        &signature, nil, msg.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(msg.count),
                        sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            return signature
        }

        /// Never shows the key: only the public address.
        public var description: String { "Ed25519.PrivateKey(address: \(solanaAddress), redacted)" }
    }
}
