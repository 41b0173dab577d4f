import Foundation

/// NIST P-384 (secp384r1, FIPS 186-4): ECDSA with SHA-384 (JOSE `ES384`, RFC 7518 section 3.4) and ECDH.
///
/// Backed by OpenSSL's libcrypto. Keys are immutable and safe to share across tasks.
public enum P384 {
    /// ECDSA-SHA384 keys (FIPS 186-4, SEC 1).
    public enum Signing {}
    /// ECDH keys (SEC 1 section 3.3.1); the same types as `Signing`.
    public enum KeyAgreement {
        /// A P-384 private key; `sharedSecret(with:)` performs ECDH.
        public typealias PrivateKey = P384.Signing.PrivateKey
        /// A P-384 public key.
        public typealias PublicKey = P384.Signing.PublicKey
    }
}

extension P384.Signing {
    /// A P-384 private key.
    public final class PrivateKey: Sendable {
        let core: ECPrivateKeyCore

        /// A fresh random key.
        public init() throws {
            core = try ECPrivateKeyCore(generating: .p384)
        }

        /// A key from its 48-byte big-endian scalar, which must be in [1, n-1].
        public init(rawRepresentation: SecretBytes) throws {
            core = try ECPrivateKeyCore(curve: .p384, scalar: rawRepresentation)
        }

        /// A key from a DER PKCS#8 PrivateKeyInfo (RFC 5208, RFC 5915) on P-384.
        public init(pkcs8DERRepresentation: SecretBytes) throws {
            core = try ECPrivateKeyCore(curve: .p384, pkcs8: pkcs8DERRepresentation)
        }

        /// The 48-byte big-endian scalar.
        public var rawRepresentation: SecretBytes { core.scalar }

        /// The DER PKCS#8 PrivateKeyInfo (RFC 5208) with the named curve and the public key.
        public func pkcs8DERRepresentation() throws -> SecretBytes { try core.pkcs8() }

        /// The matching public key.
        public var publicKey: PublicKey { PublicKey(core: core.publicKey) }

        /// ECDSA-SHA384 signature of `message` as raw `r || s` (96 bytes, the JOSE form).
        public func signature(for message: some ContiguousBytes) throws -> [UInt8] {
            try ECDSASignatureFormat.raw(fromDER: core.signDER(message: message), scalarSize: 48)
        }

        /// ECDSA-SHA384 signature of `message` as a DER `ECDSA-Sig-Value` (RFC 3279).
        public func derSignature(for message: some ContiguousBytes) throws -> [UInt8] {
            try core.signDER(message: message)
        }

        /// ECDSA signature of a precomputed 48-byte SHA-384 digest as raw `r || s`.
        public func signature(forDigest digest: some ContiguousBytes) throws -> [UInt8] {
            try ECDSASignatureFormat.raw(fromDER: derSignature(forDigest: digest), scalarSize: 48)
        }

        /// ECDSA signature of a precomputed 48-byte SHA-384 digest as DER.
        public func derSignature(forDigest digest: some ContiguousBytes) throws -> [UInt8] {
            try withInputBytes(digest) { pointer, count in
                guard count == 48 else {
                    throw CryptoError(.invalidParameter, "P-384 sign: the digest must be 48 bytes, got \(count)")
                }
                return try core.signDER(digest: pointer, count: count)
            }
        }

        /// ECDH: the 48-byte x-coordinate of the shared point (SEC 1 section 3.3.1), unhashed.
        public func sharedSecret(with publicKey: PublicKey) throws -> SecretBytes {
            try core.sharedSecret(with: publicKey.core)
        }
    }

    /// A P-384 public key.
    public final class PublicKey: Sendable, Equatable {
        let core: ECPublicKeyCore

        init(core: ECPublicKeyCore) { self.core = core }

        /// A key from the 97-byte uncompressed point `0x04 || X || Y` (SEC 1 section 2.3.3).
        ///
        /// - Throws: `CryptoError.invalidKey` when the bytes are not a point on P-384.
        public init(x963Representation: some ContiguousBytes) throws {
            core = try ECPublicKeyCore(curve: .p384, point: x963Representation.withUnsafeBytes { Array($0) })
        }

        /// A key from its 48-byte big-endian coordinates (the JWK `x` and `y`, RFC 7518 section 6.2.1).
        public convenience init(x: some ContiguousBytes, y: some ContiguousBytes) throws {
            let xs = x.withUnsafeBytes { Array($0) }
            let ys = y.withUnsafeBytes { Array($0) }
            guard xs.count == 48, ys.count == 48 else {
                throw CryptoError(.invalidKey, "P-384 public key: x and y must be 48 bytes each")
            }
            try self.init(x963Representation: [0x04] + xs + ys)
        }

        /// A key from a DER SubjectPublicKeyInfo (RFC 5480) naming P-384.
        public init(derRepresentation: some ContiguousBytes) throws {
            core = try ECPublicKeyCore(curve: .p384, spki: derRepresentation)
        }

        /// The 97-byte uncompressed point `0x04 || X || Y`.
        public var x963Representation: [UInt8] { core.point }
        /// The 48-byte big-endian x-coordinate.
        public var x: [UInt8] { Array(core.point[1...48]) }
        /// The 48-byte big-endian y-coordinate.
        public var y: [UInt8] { Array(core.point[49...96]) }
        /// The DER SubjectPublicKeyInfo (RFC 5480).
        public var derRepresentation: [UInt8] { core.spki }

        /// Whether `signature` (raw `r || s`, 96 bytes) is a valid ECDSA-SHA384 signature of `message`.
        ///
        /// High-S signatures are valid (RFC 7515 A.3 has one); malformed input is simply invalid.
        public func isValidSignature(_ signature: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
            core.verifyRaw(signature, message: message)
        }

        /// Whether `signature` (DER `ECDSA-Sig-Value`) is a valid ECDSA-SHA384 signature of `message`.
        public func isValidDERSignature(_ signature: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
            core.verifyDER(signature, message: message)
        }

        /// Whether a raw `r || s` signature is valid for a precomputed SHA-384 digest.
        ///
        /// Other digest sizes are accepted and truncated to the group order's size (FIPS 186-4 section 6.4),
        /// as X.509 needs for a key paired with a different hash.
        public func isValidSignature(_ signature: some ContiguousBytes, forDigest digest: some ContiguousBytes) -> Bool
        {
            core.verifyRaw(signature, digest: digest)
        }

        /// Whether a DER signature is valid for a precomputed SHA-384 digest.
        public func isValidDERSignature(_ signature: some ContiguousBytes, forDigest digest: some ContiguousBytes)
            -> Bool
        {
            core.verifyDER(signature, digest: digest)
        }

        /// Equal when the points are equal.
        public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool { lhs.core.point == rhs.core.point }
    }
}
