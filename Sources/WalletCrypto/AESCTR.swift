import Foundation

/// AES in counter mode (NIST SP 800-38A section 6.5), as Ethereum keystore V3 uses it (`aes-128-ctr`).
///
/// The 16-byte IV is the initial counter block, incremented as one 128-bit big-endian integer that
/// wraps from 2^128 - 1 to 0. CTR has no integrity check: authenticate the ciphertext separately.
public enum AESCTR {
    /// Encrypts `plaintext` (a secret such as a private key) with a 16- or 32-byte key.
    ///
    /// - Throws: `CryptoError.invalidKey` or `.invalidParameter` for a wrong key or IV size.
    public static func encrypt(_ plaintext: SecretBytes, key: SecretBytes, iv: some ContiguousBytes) throws -> [UInt8] {
        try SymmetricCipher.encrypt(plaintext, with: cipher(key: key, iv: iv), key: key, iv: iv, padding: false)
    }

    /// Decrypts `ciphertext` into a secret buffer.
    ///
    /// - Throws: `CryptoError.invalidKey` or `.invalidParameter` for a wrong key or IV size.
    public static func decrypt(_ ciphertext: some ContiguousBytes, key: SecretBytes, iv: some ContiguousBytes) throws
        -> SecretBytes
    {
        let algorithm = try cipher(key: key, iv: iv)
        return try withInputBytes(ciphertext) { input, count in
            try SecretBytes(count: count) { out in
                let output = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
                guard
                    try SymmetricCipher.run(
                        algorithm, encrypt: false, key: key, iv: iv, padding: false, input: input, count: count,
                        output: output) == count
                else { throw CryptoError(.libraryFailure, "AES-CTR: short output") }
            }
        }
    }

    private static func cipher(key: SecretBytes, iv: some ContiguousBytes) throws -> CipherAlgorithm {
        try SymmetricCipher.aesAlgorithm("AES-CTR", key: key, iv: iv, aes128: .aes128CTR, aes256: .aes256CTR)
    }
}
