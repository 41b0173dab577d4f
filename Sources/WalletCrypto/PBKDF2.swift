internal import COpenSSL
import Foundation

/// PBKDF2 (RFC 8018 section 5.2), as Ethereum keystore V3 files with `"kdf": "pbkdf2"` use it (HMAC-SHA256)
/// and BIP-39 seeds (HMAC-SHA512).
public enum PBKDF2 {
    /// PBKDF2 with HMAC-SHA256.
    ///
    /// - Parameters:
    ///   - password: the password bytes (UTF-8 for keystores).
    ///   - salt: the salt.
    ///   - iterations: the iteration count `c`, at least 1.
    ///   - length: the derived key length `dkLen` in bytes, at least 1.
    /// - Throws: `CryptoError.invalidParameter` for a zero or oversized count or length.
    public static func sha256(password: SecretBytes, salt: some ContiguousBytes, iterations: Int, length: Int) throws
        -> SecretBytes
    {
        try derive(.sha256, password: password, salt: salt, iterations: iterations, length: length)
    }

    /// PBKDF2 with HMAC-SHA512, as BIP-39 turns a recovery phrase into a seed (2,048 iterations, 64 bytes).
    ///
    /// - Parameters: as ``sha256(password:salt:iterations:length:)``.
    /// - Throws: `CryptoError.invalidParameter` for a zero or oversized count or length.
    public static func sha512(password: SecretBytes, salt: some ContiguousBytes, iterations: Int, length: Int) throws
        -> SecretBytes
    {
        try derive(.sha512, password: password, salt: salt, iterations: iterations, length: length)
    }

    private static func derive(
        _ digest: OpenSSL.Digest, password: SecretBytes, salt: some ContiguousBytes, iterations: Int, length: Int
    ) throws -> SecretBytes {
        guard iterations >= 1, iterations <= Int(Int32.max) else {
            throw CryptoError(.invalidParameter, "PBKDF2: iterations \(iterations) is outside 1...\(Int32.max)")
        }
        guard length >= 1, length <= Int(Int32.max) else {
            throw CryptoError(.invalidParameter, "PBKDF2: length \(length) is outside 1...\(Int32.max)")
        }
        return try withSecretBytes(password) { passwordPointer, passwordCount in
            try withInputBytes(salt) { saltPointer, saltCount in
                try SecretBytes(count: length) { out in
                    try derive(
                        digest, password: UnsafeRawBufferPointer(start: passwordPointer, count: passwordCount),
                        salt: UnsafeRawBufferPointer(start: saltPointer, count: saltCount), iterations: iterations,
                        into: out)
                }
            }
        }
    }

    /// PBKDF2-HMAC-SHA256 of raw buffers into `out` (its whole length), for callers that keep the
    /// bytes in memory of their own (scrypt's blocks). Every base address must be non-nil, even for an
    /// empty input (as `withSecretBytes` and `withInputBytes` give); the iteration check is the caller's.
    static func sha256(
        password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, iterations: Int,
        into out: UnsafeMutableRawBufferPointer
    ) throws {
        try derive(.sha256, password: password, salt: salt, iterations: iterations, into: out)
    }

    private static func derive(
        _ digest: OpenSSL.Digest, password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, iterations: Int,
        into out: UnsafeMutableRawBufferPointer
    ) throws {
        try OpenSSL.checkLength(password.count, "PBKDF2 password")
        try OpenSSL.checkLength(salt.count, "PBKDF2 salt")
        try OpenSSL.checkLength(out.count, "PBKDF2 output")
        let ok = PKCS5_PBKDF2_HMAC(
            password.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(password.count),
            salt.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(salt.count), Int32(iterations),
            digest.pointer, Int32(out.count), out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        guard ok == 1 else { throw OpenSSL.error(.libraryFailure, "PBKDF2-HMAC-\(digest.name) failed") }
    }
}
