import Foundation

/// AES in CBC mode with PKCS#7 padding (NIST SP 800-38A section 6.2; RFC 5652 section 6.3), as
/// geth's version-1 keystores use it. CBC has no integrity check: authenticate the ciphertext separately.
public enum AESCBC {
    /// Encrypts `plaintext` with a 16- or 32-byte key and a 16-byte IV, adding PKCS#7 padding.
    ///
    /// - Throws: `CryptoError.invalidKey` or `.invalidParameter` for a wrong key or IV size.
    public static func encrypt(_ plaintext: SecretBytes, key: SecretBytes, iv: some ContiguousBytes) throws -> [UInt8] {
        try SymmetricCipher.encrypt(plaintext, with: cipher(key: key, iv: iv), key: key, iv: iv, padding: true)
    }

    /// Decrypts and strips PKCS#7 padding into a secret buffer.
    ///
    /// - Throws: `CryptoError.invalidEncoding` when the length or padding is wrong (often a wrong key).
    public static func decrypt(_ ciphertext: some ContiguousBytes, key: SecretBytes, iv: some ContiguousBytes) throws
        -> SecretBytes
    {
        let algorithm = try cipher(key: key, iv: iv)
        return try withInputBytes(ciphertext) { input, count in
            guard count > 0, count % 16 == 0 else {
                throw CryptoError(.invalidEncoding, "AES-CBC: the ciphertext must be a non-empty multiple of 16 bytes")
            }
            var scratch = [UInt8](repeating: 0, count: count + 16)
            defer { SecretBytes.wipe(&scratch) }
            let length = try scratch.withUnsafeMutableBufferPointer { out in
                try SymmetricCipher.run(
                    algorithm, encrypt: false, key: key, iv: iv, padding: true, input: input, count: count,
                    output: out.baseAddress!)
            }
            return SecretBytes(scratch[0..<length])
        }
    }

    private static func cipher(key: SecretBytes, iv: some ContiguousBytes) throws -> CipherAlgorithm {
        try SymmetricCipher.aesAlgorithm("AES-CBC", key: key, iv: iv, aes128: .aes128CBC, aes256: .aes256CBC)
    }
}
