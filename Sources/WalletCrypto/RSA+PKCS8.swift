internal import COpenSSL
import Foundation

extension RSA.PrivateKey {
    /// A key from a PKCS#8 PrivateKeyInfo (RFC 5208) holding an RSA key of 2048 to 8192 bits: what
    /// `openssl genpkey -algorithm RSA` writes (PEM "PRIVATE KEY").
    ///
    /// - Throws: `CryptoError` `.invalidEncoding` when the bytes are not one DER PrivateKeyInfo,
    ///   `.invalidKey` when it holds no RSA key or one of another size. Never shows the bytes.
    public convenience init(pkcs8DERRepresentation der: SecretBytes) throws {
        let key: OpenSSL.Key = try withSecretBytes(der) { pointer, count in
            var cursor: UnsafePointer<UInt8>? = pointer
            guard let info = d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, count), cursor == pointer + count else {
                OpenSSL.clearErrors()
                throw CryptoError(.invalidEncoding, "RSA PKCS#8: not a single DER PrivateKeyInfo")
            }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            guard let pkey = EVP_PKCS82PKEY(info) else {
                OpenSSL.clearErrors()
                throw CryptoError(.invalidKey, "RSA PKCS#8: OpenSSL could not read the key")
            }
            let key = OpenSSL.Key(pkey)
            guard EVP_PKEY_is_a(pkey, "RSA") == 1 else { throw CryptoError(.invalidKey, "PKCS#8: not an RSA key") }
            return key
        }
        try self.init(key: key)
        try RSA.checkSize(publicKey.modulus)
    }

    /// The PKCS#8 PrivateKeyInfo DER (RFC 5208) of this key, in a wiped-on-release buffer.
    public func pkcs8DERRepresentation() throws -> SecretBytes {
        guard let info = EVP_PKEY2PKCS8(key.pointer) else {
            throw OpenSSL.error(.libraryFailure, "RSA: PKCS#8 encoding failed")
        }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        let length = Int(i2d_PKCS8_PRIV_KEY_INFO(info, nil))
        guard length > 0 else { throw OpenSSL.error(.libraryFailure, "RSA: PKCS#8 encoding failed") }
        return try SecretBytes(count: length) { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            guard Int(i2d_PKCS8_PRIV_KEY_INFO(info, &cursor)) == length else {
                throw OpenSSL.error(.libraryFailure, "RSA: PKCS#8 encoding failed")
            }
        }
    }
}

extension RSA.PublicKey {
    /// A key from a DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7, PEM "PUBLIC KEY") holding an RSA key of
    /// 2048 to 8192 bits.
    /// - Throws: `CryptoError` `.invalidEncoding` or `.invalidKey`.
    public convenience init(derRepresentation der: [UInt8]) throws {
        let key: OpenSSL.Key = try der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let base = buffer.baseAddress, let pkey = d2i_PUBKEY(nil, &cursor, buffer.count),
                cursor == base + buffer.count
            else {
                OpenSSL.clearErrors()
                throw CryptoError(.invalidEncoding, "RSA SubjectPublicKeyInfo: not a single DER structure")
            }
            let key = OpenSSL.Key(pkey)
            guard EVP_PKEY_is_a(pkey, "RSA") == 1 else {
                throw CryptoError(.invalidKey, "SubjectPublicKeyInfo: not an RSA key")
            }
            return key
        }
        try self.init(key: key)
        try RSA.checkSize(modulus)
    }
}

extension RSA {
    /// 2048 to 8192 bits, as ``RSA/PublicKey/init(modulus:exponent:)`` requires.
    static func checkSize(_ modulus: [UInt8]) throws {
        guard modulus.count * 8 >= 2048, modulus.count <= 1024 else {
            throw CryptoError(.invalidKey, "RSA key: the modulus must be 2048 to 8192 bits")
        }
    }
}
