import Foundation

/// A NIST prime curve (FIPS 186-4) with the hash its ECDSA pairs with: ``P256`` (SHA-256, JOSE `ES256`)
/// or ``P384`` (SHA-384, JOSE `ES384`), RFC 7518 section 3.4.
///
/// The keys are one implementation generic over the curve, so the two curves cannot drift apart; only
/// WalletCrypto's two curves conform.
public protocol NISTPrimeCurve: Sendable {
    /// The curve as OpenSSL names it.
    static var curve: NISTCurve { get }
}

/// NIST P-256 (secp256r1): ECDSA with SHA-256 and ECDH, backed by OpenSSL's libcrypto. Keys are immutable
/// and safe to share across tasks.
public enum P256: NISTPrimeCurve {
    public static var curve: NISTCurve { .p256 }
    /// ECDSA-SHA256 keys (FIPS 186-4, SEC 1).
    public typealias Signing = NISTKeys<P256>
    /// ECDH keys (SEC 1 section 3.3.1); the same types as `Signing`.
    public typealias KeyAgreement = NISTKeys<P256>
}

/// NIST P-384 (secp384r1): ECDSA with SHA-384 and ECDH, backed by OpenSSL's libcrypto. Keys are immutable
/// and safe to share across tasks.
public enum P384: NISTPrimeCurve {
    public static var curve: NISTCurve { .p384 }
    /// ECDSA-SHA384 keys (FIPS 186-4, SEC 1).
    public typealias Signing = NISTKeys<P384>
    /// ECDH keys (SEC 1 section 3.3.1); the same types as `Signing`.
    public typealias KeyAgreement = NISTKeys<P384>
}

/// The key types of one curve, as `P256.Signing` and `P384.KeyAgreement` name them.
public enum NISTKeys<Curve: NISTPrimeCurve> {
    /// A private key on `Curve`.
    public typealias PrivateKey = NISTPrivateKey<Curve>
    /// A public key on `Curve`.
    public typealias PublicKey = NISTPublicKey<Curve>
}

/// A private key on `Curve`; its scalar is `n` bytes big-endian, `n` 32 for P-256 and 48 for P-384.
public final class NISTPrivateKey<Curve: NISTPrimeCurve>: Sendable {
    let core: ECPrivateKeyCore

    /// A fresh random key.
    public init() throws {
        core = try ECPrivateKeyCore(generating: Curve.curve)
    }

    /// A key from its `n`-byte big-endian scalar, which must be in [1, order-1].
    public init(rawRepresentation: SecretBytes) throws {
        core = try ECPrivateKeyCore(curve: Curve.curve, scalar: rawRepresentation)
    }

    /// A key from a DER PKCS#8 PrivateKeyInfo (RFC 5208, RFC 5915) on `Curve`.
    public init(pkcs8DERRepresentation: SecretBytes) throws {
        core = try ECPrivateKeyCore(curve: Curve.curve, pkcs8: pkcs8DERRepresentation)
    }

    /// The `n`-byte big-endian scalar.
    public var rawRepresentation: SecretBytes { core.scalar }

    /// The DER PKCS#8 PrivateKeyInfo (RFC 5208) with the named curve and the public key.
    public func pkcs8DERRepresentation() throws -> SecretBytes { try core.pkcs8() }

    /// The matching public key.
    public var publicKey: NISTPublicKey<Curve> { NISTPublicKey(core: core.publicKey) }

    /// ECDSA signature of `message` with the curve's hash, as raw `r || s` (`2n` bytes, the JOSE form).
    public func signature(for message: some ContiguousBytes) throws -> [UInt8] {
        try ECDSASignatureFormat.raw(fromDER: core.signDER(message: message), scalarSize: Curve.curve.scalarSize)
    }

    /// ECDSA signature of `message` with the curve's hash, as a DER `ECDSA-Sig-Value` (RFC 3279).
    public func derSignature(for message: some ContiguousBytes) throws -> [UInt8] {
        try core.signDER(message: message)
    }

    /// ECDSA signature of a precomputed `n`-byte digest of the curve's hash, as raw `r || s`.
    public func signature(forDigest digest: some ContiguousBytes) throws -> [UInt8] {
        try ECDSASignatureFormat.raw(fromDER: derSignature(forDigest: digest), scalarSize: Curve.curve.scalarSize)
    }

    /// ECDSA signature of a precomputed `n`-byte digest of the curve's hash, as DER.
    public func derSignature(forDigest digest: some ContiguousBytes) throws -> [UInt8] {
        let curve = Curve.curve
        return try withInputBytes(digest) { pointer, count in
            guard count == curve.scalarSize else {
                throw CryptoError(
                    .invalidParameter, "\(curve.name) sign: the digest must be \(curve.scalarSize) bytes, got \(count)")
            }
            return try core.signDER(digest: pointer, count: count)
        }
    }

    /// ECDH: the `n`-byte x-coordinate of the shared point (SEC 1 section 3.3.1), unhashed.
    public func sharedSecret(with publicKey: NISTPublicKey<Curve>) throws -> SecretBytes {
        try core.sharedSecret(with: publicKey.core)
    }
}

/// A public key on `Curve`; its coordinates are `n` bytes big-endian, `n` 32 for P-256 and 48 for P-384.
public final class NISTPublicKey<Curve: NISTPrimeCurve>: Sendable, Equatable {
    let core: ECPublicKeyCore

    init(core: ECPublicKeyCore) { self.core = core }

    /// A key from the `1 + 2n`-byte uncompressed point `0x04 || X || Y` (SEC 1 section 2.3.3).
    ///
    /// - Throws: `CryptoError.invalidKey` when the bytes are not a point on `Curve`.
    public init(x963Representation: some ContiguousBytes) throws {
        core = try ECPublicKeyCore(curve: Curve.curve, point: x963Representation.withUnsafeBytes { Array($0) })
    }

    /// A key from its `n`-byte big-endian coordinates (the JWK `x` and `y`, RFC 7518 section 6.2.1).
    public convenience init(x: some ContiguousBytes, y: some ContiguousBytes) throws {
        let curve = Curve.curve
        let xs = x.withUnsafeBytes { Array($0) }
        let ys = y.withUnsafeBytes { Array($0) }
        guard xs.count == curve.scalarSize, ys.count == curve.scalarSize else {
            throw CryptoError(
                .invalidKey, "\(curve.name) public key: x and y must be \(curve.scalarSize) bytes each")
        }
        try self.init(x963Representation: [0x04] + xs + ys)
    }

    /// A key from a DER SubjectPublicKeyInfo (RFC 5480) naming `Curve`.
    public init(derRepresentation: some ContiguousBytes) throws {
        core = try ECPublicKeyCore(curve: Curve.curve, spki: derRepresentation)
    }

    /// The `1 + 2n`-byte uncompressed point `0x04 || X || Y`.
    public var x963Representation: [UInt8] { core.point }
    /// The `n`-byte big-endian x-coordinate.
    public var x: [UInt8] { Array(core.point[1...Curve.curve.scalarSize]) }
    /// The `n`-byte big-endian y-coordinate.
    public var y: [UInt8] { Array(core.point[(Curve.curve.scalarSize + 1)...]) }
    /// The DER SubjectPublicKeyInfo (RFC 5480).
    public var derRepresentation: [UInt8] { core.spki }

    /// Whether `signature` (raw `r || s`, `2n` bytes) is a valid ECDSA signature of `message` with the
    /// curve's hash.
    ///
    /// High-S signatures are valid (RFC 7515 A.3 has one); malformed input is simply invalid.
    public func isValidSignature(_ signature: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
        core.verifyRaw(signature, message: message)
    }

    /// Whether `signature` (DER `ECDSA-Sig-Value`) is a valid ECDSA signature of `message` with the curve's
    /// hash.
    public func isValidDERSignature(_ signature: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
        core.verifyDER(signature, message: message)
    }

    /// Whether a raw `r || s` signature is valid for a precomputed digest of the curve's hash.
    ///
    /// Other digest sizes are accepted and truncated to the group order's size (FIPS 186-4 section 6.4),
    /// as X.509 needs for a key paired with a different hash.
    public func isValidSignature(_ signature: some ContiguousBytes, forDigest digest: some ContiguousBytes) -> Bool {
        core.verifyRaw(signature, digest: digest)
    }

    /// Whether a DER signature is valid for a precomputed digest of the curve's hash.
    public func isValidDERSignature(_ signature: some ContiguousBytes, forDigest digest: some ContiguousBytes)
        -> Bool
    {
        core.verifyDER(signature, digest: digest)
    }

    /// Equal when the points are equal.
    public static func == (lhs: NISTPublicKey, rhs: NISTPublicKey) -> Bool { lhs.core.point == rhs.core.point }
}
