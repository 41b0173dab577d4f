internal import COpenSSL
internal import CSecp256k1

/// BIP-32 hierarchical deterministic keys on secp256k1: the master key of a seed and its hardened and
/// normal children, as Ethereum wallets derive `m/44'/60'/0'/0/i`.
///
/// See <https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki>.
public enum BIP32 {
    /// An extended private key: a secp256k1 key, its chain code, and where it sits in the tree.
    ///
    /// The key and the chain code live in `SecretBytes` (wiped when released); `description` shows only
    /// the depth and child number. Every node holds its public key (one scalar multiplication), which a
    /// normal child step and the fingerprint need.
    public struct ExtendedPrivateKey: Sendable, CustomStringConvertible {
        /// The node's key.
        public let privateKey: Secp256k1.PrivateKey
        /// The chain code `c`, 32 bytes.
        let chainCode: SecretBytes
        /// 0 for the master key, 1 for its children, ...
        public let depth: UInt8
        /// The first four bytes of the parent's HASH160 (zeros for the master key).
        public let parentFingerprint: [UInt8]
        /// The child number this node was derived with (0 for the master key).
        public let childNumber: UInt32

        /// The master key of `seed`: HMAC-SHA512 keyed "Bitcoin seed", split into key and chain code.
        ///
        /// - Parameter seed: 16 to 64 bytes (a BIP-39 seed is 64).
        /// - Throws: `CryptoError.invalidParameter` for a seed of another length; `.invalidKey` when the
        ///   seed gives no valid key (probability below 2^-127: BIP-32 says to use another seed).
        public init(seed: SecretBytes) throws(CryptoError) {
            guard (16...64).contains(seed.count) else {
                throw CryptoError(.invalidParameter, "BIP-32 seed: expected 16 to 64 bytes, got \(seed.count)")
            }
            let tag = seed.withUnsafeBytes { seedBytes in
                Self.masterKey.withUnsafeBytes { HMAC.secretCode(.sha512, key: $0, data: [seedBytes]) }
            }
            let key = tag.withUnsafeBytes { SecretBytes(UnsafeRawBufferPointer(rebasing: $0[0..<32])) }
            guard let privateKey = try? Secp256k1.PrivateKey(key) else {
                throw CryptoError(.invalidKey, "BIP-32: this seed gives no valid master key (use another seed)")
            }
            self.privateKey = privateKey
            chainCode = tag.withUnsafeBytes { SecretBytes(UnsafeRawBufferPointer(rebasing: $0[32..<64])) }
            depth = 0
            parentFingerprint = [0, 0, 0, 0]
            childNumber = 0
        }

        init(
            privateKey: Secp256k1.PrivateKey, chainCode: SecretBytes, depth: UInt8, parentFingerprint: [UInt8],
            childNumber: UInt32
        ) {
            self.privateKey = privateKey
            self.chainCode = chainCode
            self.depth = depth
            self.parentFingerprint = parentFingerprint
            self.childNumber = childNumber
        }

        /// "Bitcoin seed", the HMAC key of the master key.
        static let masterKey: [UInt8] = Array("Bitcoin seed".utf8)

        /// The child at `component` (CKDpriv): hardened steps hash the parent's private key, normal steps
        /// its compressed public key; the child key is I_L + k_par mod n.
        ///
        /// - Throws: `CryptoError.invalidParameter` for a key at depth 255; `.invalidKey` when I_L >= n or the
        ///   child key is zero (probability below 2^-127; BIP-32 says to go on with the next index).
        public func child(_ component: DerivationPath.Component) throws(CryptoError) -> ExtendedPrivateKey {
            guard depth < 255 else {
                throw CryptoError(.invalidParameter, "BIP-32: a key at depth 255 has no children")
            }
            let number = component.childNumber
            let serializedNumber: [UInt8] = [
                UInt8(truncatingIfNeeded: number >> 24), UInt8(truncatingIfNeeded: number >> 16),
                UInt8(truncatingIfNeeded: number >> 8), UInt8(truncatingIfNeeded: number),
            ]
            let parentPublic = privateKey.publicKey.compressedRepresentation
            let tag: SecretBytes = chainCode.withUnsafeBytes { code in
                serializedNumber.withUnsafeBytes { numberBytes in
                    if component.isHardened {
                        let zero: [UInt8] = [0]
                        return zero.withUnsafeBytes { zeroBytes in
                            privateKey.secret.withUnsafeBytes { key in
                                HMAC.secretCode(.sha512, key: code, data: [zeroBytes, key, numberBytes])
                            }
                        }
                    }
                    return parentPublic.withUnsafeBytes { point in
                        HMAC.secretCode(.sha512, key: code, data: [point, numberBytes])
                    }
                }
            }
            // k_i = I_L + k_par (mod n); libsecp256k1 refuses I_L >= n and a zero sum.
            var added: Int32 = 0
            let childSecret = SecretBytes(count: 32) { out in
                privateKey.secret.withUnsafeBytes { out.copyMemory(from: $0) }
                added = tag.withUnsafeBytes { tagBytes in
                    secp256k1_ec_seckey_tweak_add(
                        Secp256k1.Context.shared.pointer, out.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        tagBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            guard added == 1, let childKey = try? Secp256k1.PrivateKey(childSecret) else {
                throw CryptoError(
                    .invalidKey,
                    "BIP-32: child \(component) gives no valid key (probability below 2^-127; use the next index)")
            }
            return ExtendedPrivateKey(
                privateKey: childKey,
                chainCode: tag.withUnsafeBytes { SecretBytes(UnsafeRawBufferPointer(rebasing: $0[32..<64])) },
                depth: depth + 1, parentFingerprint: Array(BIP32.hash160(parentPublic).prefix(4)),
                childNumber: number)
        }

        /// The descendant at `path`, one ``child(_:)`` per step.
        ///
        /// - Throws: what ``child(_:)`` throws.
        public func derive(_ path: DerivationPath) throws(CryptoError) -> ExtendedPrivateKey {
            var node = self
            for component in path.components { node = try node.child(component) }
            return node
        }

        /// The first four bytes of HASH160 of this node's compressed public key (its children's
        /// `parentFingerprint`).
        public var fingerprint: [UInt8] {
            Array(BIP32.hash160(privateKey.publicKey.compressedRepresentation).prefix(4))
        }

        /// The 78-byte serialization of the private key (version `0488ADE4`, depth, parent fingerprint,
        /// child number, chain code, `00 || k`) in secret memory, without the Base58Check text: the bytes
        /// are the whole key, for tests against the published `xprv` strings and for encrypted export.
        public func serializedPrivate() -> SecretBytes {
            SecretBytes(count: 78) { out in
                writeHeader(version: [0x04, 0x88, 0xAD, 0xE4], into: out)
                out[45] = 0
                privateKey.secret.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: out[46..<78]).copyMemory(from: $0)
                }
            }
        }

        /// The extended public key as Base58Check text (`xpub...`, version `0488B21E`).
        public var extendedPublicKey: String {
            var bytes = [UInt8](repeating: 0, count: 78)
            bytes.withUnsafeMutableBytes { writeHeader(version: [0x04, 0x88, 0xB2, 0x1E], into: $0) }
            bytes.replaceSubrange(45..<78, with: privateKey.publicKey.compressedRepresentation)
            return Base58.encode(bytes + Array(SHA256.hash(data: SHA256.hash(data: bytes)).prefix(4)))
        }

        /// Version, depth, parent fingerprint, child number and chain code: bytes 0..<45.
        private func writeHeader(version: [UInt8], into out: UnsafeMutableRawBufferPointer) {
            for (index, byte) in version.enumerated() { out[index] = byte }
            out[4] = depth
            for (index, byte) in parentFingerprint.enumerated() { out[5 + index] = byte }
            for index in 0..<4 { out[9 + index] = UInt8(truncatingIfNeeded: childNumber >> (24 - 8 * UInt32(index))) }
            chainCode.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[13..<45]).copyMemory(from: $0) }
        }

        /// The chain code, for tests against published vectors. Handle with care.
        public var chainCodeBytes: SecretBytes { chainCode }

        public var description: String { "BIP32.ExtendedPrivateKey(depth: \(depth), child: \(childNumber), redacted)" }
    }

    /// HASH160: RIPEMD-160 of SHA-256, as BIP-32 fingerprints use it.
    static func hash160(_ bytes: [UInt8]) -> [UInt8] {
        let inner = SHA256.hash(data: bytes)
        var out = [UInt8](repeating: 0, count: 20)
        guard EVP_Digest(inner, inner.count, &out, nil, OpenSSL.Digest.ripemd160.pointer, nil) == 1 else {
            fatalError("OpenSSL RIPEMD-160 failed")
        }
        return out
    }
}
