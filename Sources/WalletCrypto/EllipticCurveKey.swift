internal import COpenSSL
import Foundation

/// A NIST prime curve as OpenSSL names it, with the hash its ECDSA pairs with; opaque outside WalletCrypto
/// (``NISTPrimeCurve/curve``).
public struct NISTCurve: Sendable {
    let name: String  // "P-256", for messages
    let groupName: String  // OpenSSL's group name
    let nid: Int32
    let scalarSize: Int
    let digest: OpenSSL.Digest
    let groupNameC: OpenSSL.CString

    var pointSize: Int { 1 + 2 * scalarSize }

    static let p256 = NISTCurve(
        name: "P-256", groupName: "prime256v1", nid: NID_X9_62_prime256v1, scalarSize: 32, digest: .sha256,
        groupNameC: OpenSSL.CString("prime256v1"))
    static let p384 = NISTCurve(
        name: "P-384", groupName: "secp384r1", nid: NID_secp384r1, scalarSize: 48, digest: .sha384,
        groupNameC: OpenSSL.CString("secp384r1"))
}

// Key selections for EVP_PKEY_fromdata (openssl/evp.h, core_dispatch.h).
private let selectPublicKey: Int32 = 0x86
private let selectKeyPair: Int32 = 0x87

/// An EC private key held in an EVP_PKEY, with its public point cached.
final class ECPrivateKeyCore: Sendable {
    let curve: NISTCurve
    let key: OpenSSL.Key
    let publicKey: ECPublicKeyCore

    /// A fresh random key.
    init(generating curve: NISTCurve) throws {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name) key generation: no EC context")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, curve.groupName) == 1,
            EVP_PKEY_generate(ctx, &pkey) == 1, let pkey
        else { throw OpenSSL.error(.libraryFailure, "\(curve.name) key generation failed") }
        let owned = OpenSSL.Key(pkey)
        let point = try ECPrivateKeyCore.encodedPublicPoint(of: pkey, curve: curve)
        self.curve = curve
        self.key = owned
        self.publicKey = try ECPublicKeyCore(curve: curve, point: point)
    }

    /// A key from its big-endian scalar, which must be exactly `scalarSize` bytes and in [1, n-1].
    init(curve: NISTCurve, scalar: SecretBytes) throws {
        guard scalar.count == curve.scalarSize else {
            throw CryptoError(
                .invalidKey, "\(curve.name) private key: expected \(curve.scalarSize) bytes, got \(scalar.count)")
        }
        guard let group = EC_GROUP_new_by_curve_name(curve.nid) else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name): no curve group")
        }
        defer { EC_GROUP_free(group) }
        guard let bn = BN_secure_new() else { throw OpenSSL.error(.libraryFailure, "\(curve.name): out of memory") }
        defer { BN_clear_free(bn) }
        withSecretBytes(scalar) { pointer, count in _ = BN_bin2bn(pointer, Int32(count), bn) }
        guard BN_is_zero(bn) == 0, BN_cmp(bn, EC_GROUP_get0_order(group)) < 0 else {
            throw CryptoError(.invalidKey, "\(curve.name) private key: scalar is zero or not below the group order")
        }
        // OpenSSL does not derive the public point on import, so compute it: Q = d*G.
        guard let point = EC_POINT_new(group) else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name): out of memory")
        }
        defer { EC_POINT_free(point) }
        var encoded = [UInt8](repeating: 0, count: curve.pointSize)
        guard EC_POINT_mul(group, point, bn, nil, nil, nil) == 1,
            EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &encoded, encoded.count, nil)
                == encoded.count
        else { throw OpenSSL.error(.libraryFailure, "\(curve.name): computing the public key failed") }

        let pkey = try ECPrivateKeyCore.fromData(
            curve: curve, selection: selectKeyPair, privateScalar: bn, point: encoded)
        self.curve = curve
        self.key = OpenSSL.Key(pkey)
        self.publicKey = try ECPublicKeyCore(curve: curve, point: encoded)
    }

    /// A key from a PKCS#8 PrivateKeyInfo (RFC 5208) holding an EC key on `curve`.
    convenience init(curve: NISTCurve, pkcs8 der: SecretBytes) throws {
        let scalar: SecretBytes = try withSecretBytes(der) { pointer, count in
            var cursor: UnsafePointer<UInt8>? = pointer
            guard let info = d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, count),
                cursor == pointer + count
            else { throw OpenSSL.error(.invalidEncoding, "\(curve.name) PKCS#8: not a single DER PrivateKeyInfo") }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            guard let pkey = EVP_PKCS82PKEY(info) else {
                throw OpenSSL.error(.invalidKey, "\(curve.name) PKCS#8: OpenSSL could not read the key")
            }
            defer { EVP_PKEY_free(pkey) }
            try ECPrivateKeyCore.requireCurve(pkey, curve, "PKCS#8")
            var bn: OpaquePointer?
            guard EVP_PKEY_get_bn_param(pkey, "priv", &bn) == 1, let bn else {
                throw OpenSSL.error(.invalidKey, "\(curve.name) PKCS#8: no private scalar")
            }
            defer { BN_clear_free(bn) }
            return try SecretBytes(count: curve.scalarSize) { buffer in
                let out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
                guard BN_bn2binpad(bn, out, Int32(curve.scalarSize)) == Int32(curve.scalarSize) else {
                    throw CryptoError(.invalidKey, "\(curve.name) PKCS#8: scalar is too large")
                }
            }
        }
        try self.init(curve: curve, scalar: scalar)
    }

    /// The big-endian scalar, left-padded to `scalarSize`.
    var scalar: SecretBytes {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key.pointer, "priv", &bn) == 1, let bn else {
            // A key built by this type always has its scalar.
            fatalError("\(curve.name): OpenSSL lost the private scalar")
        }
        defer { BN_clear_free(bn) }
        return SecretBytes(count: curve.scalarSize) { buffer in
            _ = BN_bn2binpad(bn, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(curve.scalarSize))
        }
    }

    /// The PKCS#8 PrivateKeyInfo DER (RFC 5208), with the named curve and public key.
    func pkcs8() throws -> SecretBytes {
        guard let info = EVP_PKEY2PKCS8(key.pointer) else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name): PKCS#8 encoding failed")
        }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        let length = Int(i2d_PKCS8_PRIV_KEY_INFO(info, nil))
        guard length > 0 else { throw OpenSSL.error(.libraryFailure, "\(curve.name): PKCS#8 encoding failed") }
        return try SecretBytes(count: length) { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            guard Int(i2d_PKCS8_PRIV_KEY_INFO(info, &cursor)) == length else {
                throw OpenSSL.error(.libraryFailure, "\(curve.name): PKCS#8 encoding failed")
            }
        }
    }

    /// ECDSA over a precomputed digest; DER-encoded `ECDSA-Sig-Value` (RFC 3279).
    func signDER(digest: UnsafePointer<UInt8>, count: Int) throws -> [UInt8] {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name) sign: no context")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var length = 2 * curve.scalarSize + 16
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign_init(ctx) == 1, EVP_PKEY_sign(ctx, &signature, &length, digest, count) == 1 else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name) ECDSA signing failed")
        }
        signature.removeSubrange(length...)
        return signature
    }

    /// ECDSA over the curve's hash of `message`; DER-encoded.
    func signDER(message: some ContiguousBytes) throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: curve.digest.size)
        try withInputBytes(message) { pointer, count in
            guard EVP_Digest(pointer, count, &digest, nil, curve.digest.pointer, nil) == 1 else {
                throw OpenSSL.error(.libraryFailure, "\(curve.digest.name) failed")
            }
        }
        return try signDER(digest: digest, count: digest.count)
    }

    /// ECDH (SEC 1 section 3.3.1): the x-coordinate of d*Q.
    func sharedSecret(with peer: ECPublicKeyCore) throws -> SecretBytes {
        guard peer.curve.nid == curve.nid else {
            throw CryptoError(.invalidKey, "\(curve.name) ECDH: the peer key is on \(peer.curve.name)")
        }
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name) ECDH: no context")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        // The peer point was checked to be on the curve when imported (prime order, cofactor 1),
        // so skip OpenSSL's full public-key check, which costs another scalar multiplication.
        var length = 0
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer_ex(ctx, peer.key.pointer, 0) == 1,
            EVP_PKEY_derive(ctx, nil, &length) == 1, length == curve.scalarSize
        else { throw OpenSSL.error(.libraryFailure, "\(curve.name) ECDH setup failed") }
        return try SecretBytes(count: length) { buffer in
            var written = length
            guard EVP_PKEY_derive(ctx, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), &written) == 1,
                written == length
            else { throw OpenSSL.error(.libraryFailure, "\(curve.name) ECDH failed") }
        }
    }

    /// Builds an EVP_PKEY from the named group, an optional private scalar and an uncompressed point.
    /// OpenSSL checks that the point is on the curve.
    static func fromData(curve: NISTCurve, selection: Int32, privateScalar: OpaquePointer?, point: [UInt8]) throws
        -> OpaquePointer
    {
        guard let builder = OSSL_PARAM_BLD_new() else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name): out of memory")
        }
        defer { OSSL_PARAM_BLD_free(builder) }
        // The builder copies the point only in to_param, so keep it pinned until then.
        let params = point.withUnsafeBytes { pointBytes -> UnsafeMutablePointer<OSSL_PARAM>? in
            guard
                OSSL_PARAM_BLD_push_utf8_string(
                    builder, OpenSSL.CString.group.pointer, curve.groupNameC.pointer, 0) == 1,
                OSSL_PARAM_BLD_push_octet_string(
                    builder, OpenSSL.CString.pub.pointer, pointBytes.baseAddress, pointBytes.count) == 1
            else { return nil }
            if let privateScalar, OSSL_PARAM_BLD_push_BN(builder, OpenSSL.CString.priv.pointer, privateScalar) != 1 {
                return nil
            }
            return OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name): building key parameters failed")
        }
        defer { OSSL_PARAM_free(params) }  // a secure BN's copy sits in secure memory, cleared on free
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name): no EC context")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &pkey, selection, params) == 1, let pkey else {
            let what =
                privateScalar == nil ? "public key: the point is not on the curve" : "private key: OpenSSL rejected it"
            throw OpenSSL.error(.invalidKey, "\(curve.name) \(what)")
        }
        return pkey
    }

    /// Throws unless `pkey` is an EC key on `curve`.
    static func requireCurve(_ pkey: OpaquePointer, _ curve: NISTCurve, _ what: String) throws {
        guard EVP_PKEY_is_a(pkey, "EC") == 1 else {
            throw CryptoError(.invalidKey, "\(curve.name) \(what): not an EC key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pkey, "group", &name, name.count, &length) == 1,
            String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == curve.groupName
        else {
            OpenSSL.clearErrors()
            throw CryptoError(.invalidKey, "\(curve.name) \(what): the key is not on the named curve \(curve.name)")
        }
    }

    /// The key's public point, SEC 1 encoded as OpenSSL holds it (uncompressed unless decoded otherwise).
    static func encodedPublicPoint(of pkey: OpaquePointer, curve: NISTCurve) throws -> [UInt8] {
        var encoded = [UInt8](repeating: 0, count: curve.pointSize)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pkey, "pub", &encoded, encoded.count, &length) == 1 else {
            throw OpenSSL.error(.invalidKey, "\(curve.name): the key has no public point")
        }
        encoded.removeSubrange(length...)
        return encoded
    }
}

/// An EC public key held in an EVP_PKEY, with its uncompressed point cached.
final class ECPublicKeyCore: Sendable {
    let curve: NISTCurve
    let key: OpenSSL.Key
    /// 0x04 || X || Y.
    let point: [UInt8]

    /// A key from an uncompressed SEC 1 point; OpenSSL checks that the point is on the curve.
    init(curve: NISTCurve, point: [UInt8]) throws {
        guard point.count == curve.pointSize, point.first == 0x04 else {
            throw CryptoError(
                .invalidKey,
                "\(curve.name) public key: expected a \(curve.pointSize)-byte uncompressed point (0x04 || X || Y)")
        }
        let pkey = try ECPrivateKeyCore.fromData(
            curve: curve, selection: selectPublicKey, privateScalar: nil, point: point)
        self.curve = curve
        self.key = OpenSSL.Key(pkey)
        self.point = point
    }

    /// A key from a DER SubjectPublicKeyInfo (RFC 5480) naming `curve`; compressed points are accepted.
    convenience init(curve: NISTCurve, spki der: some ContiguousBytes) throws {
        let point: [UInt8] = try withInputBytes(der) { pointer, count in
            var cursor: UnsafePointer<UInt8>? = pointer
            guard let pkey = d2i_PUBKEY(nil, &cursor, count), cursor == pointer + count else {
                throw OpenSSL.error(.invalidEncoding, "\(curve.name) SubjectPublicKeyInfo: not a single DER key")
            }
            defer { EVP_PKEY_free(pkey) }
            try ECPrivateKeyCore.requireCurve(pkey, curve, "SubjectPublicKeyInfo")
            // RFC 5480 requires a named curve; OpenSSL maps explicit parameters that resemble one
            // (even with a wrong cofactor) to its name, so refuse them outright.
            var explicit: Int32 = 0
            if EVP_PKEY_get_int_param(pkey, "decoded-from-explicit", &explicit) != 1 { OpenSSL.clearErrors() }
            guard explicit == 0 else {
                throw CryptoError(.invalidKey, "\(curve.name) SubjectPublicKeyInfo: explicit curve parameters")
            }
            return try ECPrivateKeyCore.encodedPublicPoint(of: pkey, curve: curve)
        }
        try self.init(curve: curve, point: ECPublicKeyCore.uncompressed(point, curve: curve))
    }

    /// Re-encodes a SEC 1 point (compressed or not) as uncompressed, checking it is on the curve.
    static func uncompressed(_ point: [UInt8], curve: NISTCurve) throws -> [UInt8] {
        if point.count == curve.pointSize && point.first == 0x04 { return point }
        guard let group = EC_GROUP_new_by_curve_name(curve.nid), let decoded = EC_POINT_new(group) else {
            throw OpenSSL.error(.libraryFailure, "\(curve.name): no curve group")
        }
        defer {
            EC_POINT_free(decoded)
            EC_GROUP_free(group)
        }
        var out = [UInt8](repeating: 0, count: curve.pointSize)
        guard EC_POINT_oct2point(group, decoded, point, point.count, nil) == 1,
            EC_POINT_point2oct(group, decoded, POINT_CONVERSION_UNCOMPRESSED, &out, out.count, nil) == out.count
        else { throw OpenSSL.error(.invalidKey, "\(curve.name) public key: not a point on the curve") }
        return out
    }

    /// The DER SubjectPublicKeyInfo (RFC 5480) with the named curve and an uncompressed point.
    var spki: [UInt8] {
        let length = Int(i2d_PUBKEY(key.pointer, nil))
        guard length > 0 else { fatalError("\(curve.name): OpenSSL could not encode a public key") }
        var out = [UInt8](repeating: 0, count: length)
        out.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_PUBKEY(key.pointer, &cursor)
        }
        return out
    }

    /// Verifies a DER ECDSA signature over a precomputed digest. High-S signatures are accepted.
    func verifyDER(_ signature: UnsafePointer<UInt8>, _ signatureCount: Int, digest: UnsafePointer<UInt8>, _ count: Int)
        -> Bool
    {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            OpenSSL.clearErrors()
            return false
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        let ok = EVP_PKEY_verify_init(ctx) == 1 && EVP_PKEY_verify(ctx, signature, signatureCount, digest, count) == 1
        if !ok { OpenSSL.clearErrors() }
        return ok
    }

    /// Verifies a DER ECDSA signature over the curve's hash of `message`.
    func verifyDER(_ signature: some ContiguousBytes, message: some ContiguousBytes) -> Bool {
        var digest = [UInt8](repeating: 0, count: curve.digest.size)
        let hashed = withInputBytes(message) { pointer, count in
            EVP_Digest(pointer, count, &digest, nil, curve.digest.pointer, nil) == 1
        }
        guard hashed else {
            OpenSSL.clearErrors()
            return false
        }
        return withInputBytes(signature) { sig, sigCount in verifyDER(sig, sigCount, digest: digest, digest.count) }
    }

    /// Verifies a raw r || s signature over the curve's hash of `message`.
    func verifyRaw(_ signature: some ContiguousBytes, message: some ContiguousBytes) -> Bool {
        guard let der = try? ECDSASignatureFormat.der(fromRaw: signature, scalarSize: curve.scalarSize) else {
            return false
        }
        return verifyDER(der, message: message)
    }

    /// Verifies a raw r || s signature over a precomputed digest.
    func verifyRaw(_ signature: some ContiguousBytes, digest: some ContiguousBytes) -> Bool {
        guard let der = try? ECDSASignatureFormat.der(fromRaw: signature, scalarSize: curve.scalarSize) else {
            return false
        }
        return verifyDER(der, digest: digest)
    }

    /// Verifies a DER signature over a precomputed digest.
    func verifyDER(_ signature: some ContiguousBytes, digest: some ContiguousBytes) -> Bool {
        withInputBytes(signature) { sig, sigCount in
            withInputBytes(digest) { d, dCount in
                dCount > 0 && verifyDER(sig, sigCount, digest: d, dCount)
            }
        }
    }
}
