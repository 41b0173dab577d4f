internal import COpenSSL
import Foundation

/// One-shot unauthenticated AES modes (CTR, CBC) over EVP_CIPHER.
enum SymmetricCipher {
    /// Runs `algorithm` over `input` in one pass; `padding` enables PKCS#7 (CBC only).
    static func run(
        _ algorithm: CipherAlgorithm, encrypt: Bool, key: SecretBytes, iv: some ContiguousBytes,
        padding: Bool, input: UnsafePointer<UInt8>, count: Int, output: UnsafeMutablePointer<UInt8>
    ) throws -> Int {
        try OpenSSL.checkLength(count, algorithm.name)
        guard let ctx = EVP_CIPHER_CTX_new() else {
            throw OpenSSL.error(.libraryFailure, "\(algorithm.name): out of memory")
        }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var written: Int32 = 0
        var tail: Int32 = 0
        let ok = withSecretBytes(key) { keyBytes, _ in
            withInputBytes(iv) { ivBytes, _ in
                EVP_CipherInit_ex2(ctx, algorithm.pointer, keyBytes, ivBytes, encrypt ? 1 : 0, nil) == 1
            }
        }
        guard ok, EVP_CIPHER_CTX_set_padding(ctx, padding ? 1 : 0) == 1 else {
            throw OpenSSL.error(.libraryFailure, "\(algorithm.name): initialisation failed")
        }
        guard EVP_CipherUpdate(ctx, output, &written, input, Int32(count)) == 1 else {
            throw OpenSSL.error(.libraryFailure, "\(algorithm.name): update failed")
        }
        guard EVP_CipherFinal_ex(ctx, output + Int(written), &tail) == 1 else {
            OpenSSL.clearErrors()
            throw CryptoError(.invalidEncoding, "\(algorithm.name): bad padding (wrong key or corrupted data)")
        }
        return Int(written + tail)
    }

    /// Encrypts `plaintext` in one pass into a new array (PKCS#7 padding, when on, adds at most a block).
    static func encrypt(
        _ plaintext: SecretBytes, with algorithm: CipherAlgorithm, key: SecretBytes, iv: some ContiguousBytes,
        padding: Bool
    ) throws -> [UInt8] {
        try withSecretBytes(plaintext) { input, count in
            try [UInt8](unsafeUninitializedCapacity: count + 16) { out, initialized in
                initialized = 0
                initialized = try run(
                    algorithm, encrypt: true, key: key, iv: iv, padding: padding, input: input, count: count,
                    output: out.baseAddress!)
            }
        }
    }

    /// Checks a 16- or 32-byte key and a 16-byte IV for the AES mode `name`, and picks `aes128` or
    /// `aes256` by the key size.
    static func aesAlgorithm(
        _ name: String, key: SecretBytes, iv: some ContiguousBytes, aes128: CipherAlgorithm, aes256: CipherAlgorithm
    ) throws -> CipherAlgorithm {
        let ivCount = iv.withUnsafeBytes { $0.count }
        guard ivCount == 16 else {
            throw CryptoError(.invalidParameter, "\(name): the IV must be 16 bytes, got \(ivCount)")
        }
        guard key.count == 16 || key.count == 32 else {
            throw CryptoError(.invalidKey, "\(name): the key must be 16 or 32 bytes, got \(key.count)")
        }
        return key.count == 16 ? aes128 : aes256
    }
}
