extension BIP32 {
    /// The version bytes of extended keys (BIP-32 "Serialization format"): mainnet and testnet.
    static let privateVersions: [[UInt8]] = [[0x04, 0x88, 0xAD, 0xE4], [0x04, 0x35, 0x83, 0x94]]
    static let publicVersions: [[UInt8]] = [[0x04, 0x88, 0xB2, 0x1E], [0x04, 0x35, 0x87, 0xCF]]

    /// An extended public key (`xpub`), parsed and checked: a curve point, its chain code and its place.
    public struct ExtendedPublicKey: Sendable, Hashable {
        /// The node's public key.
        public let publicKey: Secp256k1.PublicKey
        /// The chain code (public for an xpub, but it and the key let anyone derive the normal children).
        public let chainCode: [UInt8]
        /// 0 for the master key.
        public let depth: UInt8
        /// The first four bytes of the parent's HASH160.
        public let parentFingerprint: [UInt8]
        /// The child number.
        public let childNumber: UInt32

        /// Parses Base58Check `xpub` (or `tpub`) text.
        ///
        /// - Throws: `CryptoError.invalidEncoding` naming the rule the text breaks (checksum, length,
        ///   version, a private key under a public version, a point off the curve, a depth of 0 with a
        ///   parent or a child number).
        public init(text: String) throws(CryptoError) {
            let utf8 = Array(text.utf8)
            var payload = try utf8.withUnsafeBytes { bytes in
                Result { () throws(CryptoError) in try BIP32.payload(of: bytes) }
            }.get()
            defer { SecretBytes.wipe(&payload) }
            try BIP32.checkHeader(payload, ofPrivateKey: false)
            guard payload[45] == 0x02 || payload[45] == 0x03 else {
                throw CryptoError(
                    .invalidEncoding,
                    payload[45] == 0x00
                        ? "extended public key: the key is a private key (prefix 00) under a public version"
                        : "extended public key: the key prefix \(Base16.encode([payload[45]])) is not 02 or 03")
            }
            do {
                publicKey = try Secp256k1.PublicKey(bytes: Array(payload[45..<78]))
            } catch {
                throw CryptoError(.invalidEncoding, "extended public key: the key is not a point on secp256k1")
            }
            chainCode = Array(payload[13..<45])
            depth = payload[4]
            parentFingerprint = Array(payload[5..<9])
            childNumber = BIP32.childNumber(payload)
        }
    }

    /// The 78-byte payload of Base58Check text, its checksum verified; the caller wipes it.
    static func payload(of text: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        var decoded: [UInt8]
        do {
            decoded = try Base58.decode(text: text)
        } catch {
            throw CryptoError(.invalidEncoding, "extended key: not base58 (character \(error.offset + 1))")
        }
        defer { SecretBytes.wipe(&decoded) }
        guard decoded.count == 82 else {
            throw CryptoError(
                .invalidEncoding, "extended key: \(decoded.count) bytes, expected 78 and a 4-byte checksum")
        }
        var payload = Array(decoded[0..<78])
        let checksum = SHA256.hash(data: SHA256.hash(data: payload)).prefix(4)
        guard constantTimeEquals(checksum, decoded[78..<82]) else {
            SecretBytes.wipe(&payload)
            throw CryptoError(.invalidEncoding, "extended key: the Base58Check checksum does not match")
        }
        return payload
    }

    /// Checks the version (an xprv or tprv for a private key, an xpub or tpub for a public one; the
    /// other kind's version is named as such) and the place in the tree.
    static func checkHeader(_ payload: [UInt8], ofPrivateKey: Bool) throws(CryptoError) {
        let version = Array(payload[0..<4])
        let (expected, other) = ofPrivateKey ? (privateVersions, publicVersions) : (publicVersions, privateVersions)
        guard expected.contains(version) else {
            let (kind, prefix, otherKind, otherPrefix) =
                ofPrivateKey ? ("private", "xprv", "public", "xpub") : ("public", "xpub", "private", "xprv")
            throw CryptoError(
                .invalidEncoding,
                other.contains(version)
                    ? "extended \(kind) key: the version is a \(otherKind) key's (\(otherPrefix)); expected \(prefix)"
                    : "extended key: unknown version \(Base16.encode(version))")
        }
        try checkPlace(payload)
    }

    /// A master key (depth 0) has no parent fingerprint and child number 0.
    private static func checkPlace(_ payload: [UInt8]) throws(CryptoError) {
        guard payload[4] == 0 else { return }
        guard payload[5..<9].allSatisfy({ $0 == 0 }) else {
            throw CryptoError(.invalidEncoding, "extended key: depth 0 with a parent fingerprint")
        }
        guard childNumber(payload) == 0 else {
            throw CryptoError(.invalidEncoding, "extended key: depth 0 with a child number")
        }
    }

    static func childNumber(_ payload: [UInt8]) -> UInt32 {
        payload[9..<13].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

extension BIP32.ExtendedPrivateKey {
    /// Parses Base58Check `xprv` (or `tprv`) text held in secret memory.
    ///
    /// - Throws: `CryptoError.invalidEncoding` naming the rule the text breaks (checksum, length, version,
    ///   a public key under a private version, a prefix other than 00, a depth of 0 with a parent or a
    ///   child number), `.invalidKey` for a key outside [1, n-1]. Messages never show the key.
    public init(text: SecretBytes) throws(CryptoError) {
        var payload = try text.withUnsafeBytes { bytes in
            Result { () throws(CryptoError) in try BIP32.payload(of: bytes) }
        }.get()
        defer { SecretBytes.wipe(&payload) }
        try BIP32.checkHeader(payload, ofPrivateKey: true)
        guard payload[45] == 0x00 else {
            throw CryptoError(
                .invalidEncoding,
                payload[45] == 0x02 || payload[45] == 0x03
                    ? "extended private key: the key is a public key (prefix 02/03) under a private version"
                    : "extended private key: the key prefix \(Base16.encode([payload[45]])) is not 00")
        }
        let secret = payload.withUnsafeBytes { SecretBytes.copyingBytes(UnsafeRawBufferPointer(rebasing: $0[46..<78])) }
        let key: Secp256k1.PrivateKey
        do {
            key = try Secp256k1.PrivateKey(secret)
        } catch {
            throw CryptoError(.invalidKey, "extended private key: the key is not in [1, n-1]")
        }
        self.init(
            privateKey: key,
            chainCode: payload.withUnsafeBytes {
                SecretBytes.copyingBytes(UnsafeRawBufferPointer(rebasing: $0[13..<45]))
            },
            depth: payload[4], parentFingerprint: Array(payload[5..<9]), childNumber: BIP32.childNumber(payload))
    }
}

extension SecretBytes {
    /// A secret copy of `bytes`, straight into the secret buffer.
    static func copyingBytes(_ bytes: UnsafeRawBufferPointer) -> SecretBytes {
        SecretBytes(count: bytes.count) { out in
            if bytes.count > 0 { out.copyMemory(from: bytes) }
        }
    }
}
