/// SLIP-10 key derivation for Ed25519: the master key of a seed and its hardened children, as Solana
/// wallets derive `m/44'/501'/i'/0'`.
///
/// See <https://github.com/satoshilabs/slips/blob/master/slip-0010.md>.
public enum SLIP10 {
    /// An Ed25519 node: a 32-byte private key (an Ed25519 seed) and its chain code, both in `SecretBytes`.
    ///
    /// Only hardened steps exist: an Ed25519 secret is hashed into its scalar, so no child can follow from
    /// a parent's public key and SLIP-10 defines none. `description` never shows the key.
    public struct Ed25519Node: Sendable, CustomStringConvertible {
        /// The node's private key: the 32-byte Ed25519 seed (RFC 8032's private key).
        let key: SecretBytes
        /// The chain code, 32 bytes.
        let chainCode: SecretBytes
        /// 0 for the master key, 1 for its children, ...
        public let depth: Int

        /// The master node of `seed`: HMAC-SHA512 keyed "ed25519 seed", split into key and chain code.
        ///
        /// - Parameter seed: 16 to 64 bytes (a BIP-39 seed is 64).
        /// - Throws: `CryptoError.invalidParameter` for a seed of another length.
        public init(seed: SecretBytes) throws(CryptoError) {
            guard (16...64).contains(seed.count) else {
                throw CryptoError(.invalidParameter, "SLIP-10 seed: expected 16 to 64 bytes, got \(seed.count)")
            }
            let tag = seed.withUnsafeBytes { seedBytes in
                Self.masterKey.withUnsafeBytes { HMAC.secretCode(.sha512, key: $0, data: [seedBytes]) }
            }
            self.init(tag: tag, depth: 0)
        }

        private init(tag: SecretBytes, depth: Int) {
            key = tag.withUnsafeBytes { SecretBytes(UnsafeRawBufferPointer(rebasing: $0[0..<32])) }
            chainCode = tag.withUnsafeBytes { SecretBytes(UnsafeRawBufferPointer(rebasing: $0[32..<64])) }
            self.depth = depth
        }

        /// "ed25519 seed", the HMAC key of the master node.
        static let masterKey: [UInt8] = Array("ed25519 seed".utf8)

        /// The hardened child at `component`: HMAC-SHA512(chain code, 00 || key || ser32(i)).
        ///
        /// - Throws: `CryptoError.invalidParameter` for a normal (unhardened) step, which SLIP-10 does not
        ///   define for Ed25519.
        public func child(_ component: DerivationPath.Component) throws(CryptoError) -> Ed25519Node {
            guard component.isHardened else {
                throw CryptoError(
                    .invalidParameter,
                    "SLIP-10 Ed25519 derives hardened steps only: step \(component) would need the child key to "
                        + "follow from the parent's public key, which Ed25519 (a hashed secret) does not allow; "
                        + "write \(component.index)' instead")
            }
            let number = component.childNumber
            let data: [UInt8] = [
                UInt8(truncatingIfNeeded: number >> 24), UInt8(truncatingIfNeeded: number >> 16),
                UInt8(truncatingIfNeeded: number >> 8), UInt8(truncatingIfNeeded: number),
            ]
            let zero: [UInt8] = [0]
            let tag = chainCode.withUnsafeBytes { code in
                zero.withUnsafeBytes { zeroBytes in
                    key.withUnsafeBytes { keyBytes in
                        data.withUnsafeBytes { HMAC.secretCode(.sha512, key: code, data: [zeroBytes, keyBytes, $0]) }
                    }
                }
            }
            return Ed25519Node(tag: tag, depth: depth + 1)
        }

        /// The descendant at `path`, one ``child(_:)`` per step.
        ///
        /// - Throws: what ``child(_:)`` throws, naming the whole path.
        public func derive(_ path: DerivationPath) throws(CryptoError) -> Ed25519Node {
            var node = self
            for component in path.components {
                do {
                    node = try node.child(component)
                } catch {
                    throw CryptoError(error.code, "derivation path \(path): \(error.message)")
                }
            }
            return node
        }

        /// The node's Ed25519 key pair (one scalar multiplication).
        public var privateKey: Ed25519.PrivateKey {
            // A 32-byte seed is always a valid Ed25519 private key.
            try! Ed25519.PrivateKey(seed: key)
        }

        /// The 32-byte private key (the Ed25519 seed a Solana import sends). Handle with care.
        public var secretBytes: SecretBytes { key }

        /// The chain code, for tests against published vectors. Handle with care.
        public var chainCodeBytes: SecretBytes { chainCode }

        public var description: String { "SLIP10.Ed25519Node(depth: \(depth), redacted)" }
    }
}
