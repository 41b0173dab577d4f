internal import COpenSSL
import Foundation
import TextFormats

/// An error from a WalletCrypto primitive: what failed and where, never the secret bytes involved.
///
/// Two errors are equal when their codes are equal, whatever the message.
public struct CryptoError: CodedError, Sendable {
    /// The kind of failure, for callers that branch on it.
    public enum Code: String, Sendable, Equatable {
        /// A key's bytes, size, encoding or curve is wrong.
        case invalidKey
        /// A signature is malformed (for example not DER) or has the wrong size.
        case invalidSignature
        /// A parameter (nonce size, length, cost) is outside what the algorithm accepts.
        case invalidParameter
        /// An AEAD tag or a MAC did not match: the data was altered or the key is wrong.
        case authenticationFailure
        /// A KDF would need more memory than the caller allowed.
        case memoryLimitExceeded
        /// An encoding (DER, PKCS#8, padding) could not be read.
        case invalidEncoding
        /// The underlying C library reported a failure that does not fit the codes above.
        case libraryFailure
    }

    /// The kind of failure.
    public let code: Code
    /// A human-readable sentence: what failed and where. Never contains key material.
    public let message: String

    /// Makes an error; `message` must not contain secrets.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `CryptoError.<code>: <message>`.
    public var description: String { "CryptoError.\(code.rawValue): \(message)" }
}

/// Helpers shared by the OpenSSL-backed primitives.
enum OpenSSL {
    /// Drains OpenSSL's thread-local error queue into a `CryptoError`, so a failure does not
    /// linger and get reported by an unrelated later call.
    static func error(_ code: CryptoError.Code, _ what: String) -> CryptoError {
        var reason = ""
        let first = ERR_get_error()
        if first != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(first, &buffer, buffer.count)
            reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        ERR_clear_error()
        return CryptoError(code, reason.isEmpty ? what : "\(what) (\(reason))")
    }

    /// The largest input OpenSSL's `int`-sized EVP update calls take in one go.
    static let maximumInput = Int(Int32.max) - 64

    /// Throws unless `count` fits an `int` length argument.
    static func checkLength(_ count: Int, _ what: String) throws {
        guard count <= maximumInput else {
            throw CryptoError(.invalidParameter, "\(what): inputs above \(maximumInput) bytes are not supported")
        }
    }

    /// Clears the error queue after an expected failure (for example a signature that does not verify).
    static func clearErrors() { ERR_clear_error() }

    /// A message digest fetched once from the default provider; fetching per call is slow in OpenSSL 3.
    final class Digest: @unchecked Sendable {  // immutable after init; a fetched EVP_MD is safe to share
        let pointer: OpaquePointer
        let size: Int
        let name: String
        /// The name with a stable address, for OSSL_PARAM arrays.
        let cName: CString

        init(_ name: String) {
            cName = CString(name)
            guard let md = EVP_MD_fetch(nil, name, nil) else {
                fatalError("OpenSSL provides no \(name) digest")
            }
            pointer = md
            size = Int(EVP_MD_get_size(md))
            self.name = name
        }

        deinit { EVP_MD_free(pointer) }

        static let sha256 = Digest("SHA256")
        static let sha384 = Digest("SHA384")
        static let sha512 = Digest("SHA512")
        /// RIPEMD-160, for BIP-32 key fingerprints (HASH160 = RIPEMD-160 of SHA-256).
        static let ripemd160 = Digest("RIPEMD160")
    }

    /// A C string with a stable address: OSSL_PARAM_BLD keeps pointers to keys and values until
    /// `OSSL_PARAM_BLD_to_param`, and the resulting params keep pointing at the keys.
    final class CString: @unchecked Sendable {  // immutable after init
        let pointer: UnsafeMutablePointer<CChar>

        init(_ string: String) { pointer = strdup(string)! }

        deinit { free(pointer) }

        static let group = CString("group")
        static let priv = CString("priv")
        static let pub = CString("pub")
        static let digest = CString("digest")
    }

    /// Owns an `EVP_PKEY`; freed when the last Swift reference goes away.
    final class Key: @unchecked Sendable {  // an EVP_PKEY is never mutated after init, so reads may share it
        let pointer: OpaquePointer

        init(_ pointer: OpaquePointer) { self.pointer = pointer }

        deinit { EVP_PKEY_free(pointer) }
    }
}

/// A one-byte buffer standing in for the pointer of an empty input, since some C APIs reject NULL.
// Never written after init, so sharing it across threads is safe.
nonisolated(unsafe) private let emptyInput: UnsafeMutablePointer<UInt8> = {
    let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    return pointer
}()

/// Calls `body` with a non-null pointer to `bytes` and their count. Module-wide: other
/// OpenSSL-backed files in WalletCrypto (RSA) use it too.
@inline(__always)
func withInputBytes<R>(
    _ bytes: some ContiguousBytes, _ body: (UnsafePointer<UInt8>, Int) throws -> R
) rethrows -> R {
    try bytes.withUnsafeBytes { buffer in
        if let base = buffer.baseAddress, buffer.count > 0 {
            return try body(base.assumingMemoryBound(to: UInt8.self), buffer.count)
        }
        return try body(UnsafePointer(emptyInput), 0)
    }
}

/// Calls `body` with a non-null pointer to a secret's bytes and their count.
@inline(__always)
func withSecretBytes<R>(_ secret: SecretBytes, _ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
    try secret.withUnsafeBytes { buffer in
        if let base = buffer.baseAddress, buffer.count > 0 {
            return try body(base.assumingMemoryBound(to: UInt8.self), buffer.count)
        }
        return try body(UnsafePointer(emptyInput), 0)
    }
}
