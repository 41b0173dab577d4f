internal import COpenSSL
import Foundation

/// RSASSA-PKCS1-v1_5 with SHA-256 (JOSE `RS256`, RFC 7518 section 3.3), for verifying the ID tokens of
/// OIDC providers that sign with RSA. Keys are at least 2048 bits.
public enum RSA {
    /// An RSA public key from its modulus and exponent (big-endian, as JWK `n` and `e` carry them).
    public final class PublicKey: Sendable {
        let key: OpenSSL.Key
        /// The modulus, big-endian without leading zeros.
        public let modulus: [UInt8]
        /// The public exponent, big-endian without leading zeros.
        public let exponent: [UInt8]

        public init(modulus: [UInt8], exponent: [UInt8]) throws {
            let n = Array(modulus.drop { $0 == 0 })
            let e = Array(exponent.drop { $0 == 0 })
            guard n.count * 8 >= 2048, n.count <= 1024 else {
                throw CryptoError(.invalidKey, "RSA public key: the modulus must be 2048 to 8192 bits")
            }
            guard !e.isEmpty, e.count <= 8 else { throw CryptoError(.invalidKey, "RSA public key: bad exponent") }
            self.modulus = n
            self.exponent = e
            key = try RSA.makeKey(n: n, e: e)
        }

        init(key: OpenSSL.Key) throws {
            self.key = key
            self.modulus = try RSA.bigNumberParameter(key, "n")
            self.exponent = try RSA.bigNumberParameter(key, "e")
        }

        /// Whether `signature` is a valid RS256 signature of `message`.
        public func isValidSignature(_ signature: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
            guard let context = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, key.pointer, nil) == 1 else {
                OpenSSL.clearErrors()
                return false
            }
            let result = withInputBytes(signature) { sig, sigCount in
                withInputBytes(message) { msg, msgCount in
                    EVP_DigestVerify(context, sig, sigCount, msg, msgCount)
                }
            }
            OpenSSL.clearErrors()
            return result == 1
        }
    }

    /// An RSA private key, for tests and development issuers that sign RS256 tokens.
    public final class PrivateKey: Sendable {
        let key: OpenSSL.Key
        public let publicKey: PublicKey

        /// Generates a fresh key of `bits` (2048 by default).
        public init(bits: Int = 2048) throws {
            guard let pkey = walletops_rsa_keygen(bits) else {
                throw OpenSSL.error(.libraryFailure, "RSA key generation failed")
            }
            key = OpenSSL.Key(pkey)
            publicKey = try PublicKey(key: key)
        }

        /// A key OpenSSL already holds (read from PKCS#8 by `init(pkcs8DERRepresentation:)`).
        init(key: OpenSSL.Key) throws {
            self.key = key
            publicKey = try PublicKey(key: key)
        }

        /// Signs `message` with RS256.
        public func signature(for message: some ContiguousBytes) throws -> [UInt8] {
            guard let context = EVP_MD_CTX_new() else { throw OpenSSL.error(.libraryFailure, "EVP_MD_CTX_new") }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestSignInit_ex(context, nil, "SHA256", nil, nil, key.pointer, nil) == 1 else {
                throw OpenSSL.error(.libraryFailure, "RSA sign init")
            }
            var length = 0
            return try withInputBytes(message) { msg, msgCount in
                guard EVP_DigestSign(context, nil, &length, msg, msgCount) == 1 else {
                    throw OpenSSL.error(.libraryFailure, "RSA sign")
                }
                var out = [UInt8](repeating: 0, count: length)
                guard EVP_DigestSign(context, &out, &length, msg, msgCount) == 1 else {
                    throw OpenSSL.error(.libraryFailure, "RSA sign")
                }
                return Array(out.prefix(length))
            }
        }
    }

    private static let modulusName = OpenSSL.CString("n")
    private static let exponentName = OpenSSL.CString("e")

    private static func makeKey(n: [UInt8], e: [UInt8]) throws -> OpenSSL.Key {
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSL.error(.libraryFailure, "OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        let nBN = n.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(n.count), nil) }
        let eBN = e.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(e.count), nil) }
        defer {
            BN_free(nBN)
            BN_free(eBN)
        }
        // The builder keeps pointers to the parameter names, so they need stable addresses.
        guard OSSL_PARAM_BLD_push_BN(builder, modulusName.pointer, nBN) == 1,
            OSSL_PARAM_BLD_push_BN(builder, exponentName.pointer, eBN) == 1,
            let params = OSSL_PARAM_BLD_to_param(builder)
        else { throw OpenSSL.error(.invalidKey, "RSA public key parameters") }
        defer { OSSL_PARAM_free(params) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            throw OpenSSL.error(.libraryFailure, "EVP_PKEY_CTX_new_from_name RSA")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &pkey, walletops_rsa_public_selection(), params) == 1, let pkey
        else { throw OpenSSL.error(.invalidKey, "RSA public key") }
        return OpenSSL.Key(pkey)
    }

    private static func bigNumberParameter(_ key: OpenSSL.Key, _ name: String) throws -> [UInt8] {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key.pointer, name, &bn) == 1, let bn else {
            throw OpenSSL.error(.libraryFailure, "RSA parameter \(name)")
        }
        defer { BN_free(bn) }
        let count = (Int(BN_num_bits(bn)) + 7) / 8
        var out = [UInt8](repeating: 0, count: count)
        _ = BN_bn2bin(bn, &out)
        return out
    }
}
