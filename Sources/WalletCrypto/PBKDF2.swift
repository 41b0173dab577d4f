internal import COpenSSL
import Foundation

/// PBKDF2 (RFC 8018 section 5.2), as Ethereum keystore V3 files with `"kdf": "pbkdf2"` use it.
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
        guard iterations >= 1, iterations <= Int(Int32.max) else {
            throw CryptoError(.invalidParameter, "PBKDF2: iterations \(iterations) is outside 1...\(Int32.max)")
        }
        guard length >= 1, length <= Int(Int32.max) else {
            throw CryptoError(.invalidParameter, "PBKDF2: length \(length) is outside 1...\(Int32.max)")
        }
        return try withSecretBytes(password) { passwordPointer, passwordCount in
            try withInputBytes(salt) { saltPointer, saltCount in
                try OpenSSL.checkLength(passwordCount, "PBKDF2 password")
                try OpenSSL.checkLength(saltCount, "PBKDF2 salt")
                return try SecretBytes(count: length) { out in
                    let ok = passwordPointer.withMemoryRebound(to: CChar.self, capacity: max(passwordCount, 1)) {
                        PKCS5_PBKDF2_HMAC(
                            $0, Int32(passwordCount), saltPointer, Int32(saltCount), Int32(iterations),
                            OpenSSL.Digest.sha256.pointer, Int32(length),
                            out.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                    guard ok == 1 else { throw OpenSSL.error(.libraryFailure, "PBKDF2-HMAC-SHA256 failed") }
                }
            }
        }
    }
}
