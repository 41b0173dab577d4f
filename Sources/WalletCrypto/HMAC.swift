internal import COpenSSL
import Foundation

/// HMAC (RFC 2104) with SHA-256, SHA-384 or SHA-512: one-shot or incremental.
public struct HMAC {
    /// The hash function inside the HMAC.
    public enum Hash: Sendable, Equatable {
        case sha256, sha384, sha512

        var digest: OpenSSL.Digest {
            switch self {
            case .sha256: .sha256
            case .sha384: .sha384
            case .sha512: .sha512
            }
        }

        /// The tag size in bytes.
        public var byteCount: Int { digest.size }
    }

    private var context: MACContext

    /// Starts an HMAC with `key` (any length; RFC 2104 hashes keys longer than a block).
    public init(key: SecretBytes, hash: Hash = .sha256) {
        context = withSecretBytes(key) { MACContext(hash.digest, key: $0, count: $1) }
    }

    /// Absorbs more input.
    public mutating func update(data: some ContiguousBytes) {
        if !isKnownUniquelyReferenced(&context) { context = MACContext(copying: context) }
        withInputBytes(data) { context.update($0, $1) }
    }

    /// The tag of everything absorbed so far; the state can keep absorbing afterwards.
    public func finalize() -> [UInt8] { MACContext(copying: context).finalize() }

    /// The HMAC tag of `data` under `key`.
    public static func authenticationCode(
        for data: some ContiguousBytes, key: SecretBytes, hash: Hash = .sha256
    ) -> [UInt8] {
        withSecretBytes(key) { keyPointer, keyCount in
            withInputBytes(data) { dataPointer, dataCount in
                HMAC.compute(hash.digest, key: keyPointer, keyCount, data: [(dataPointer, dataCount)])
            }
        }
    }

    /// Whether `code` is the HMAC tag of `data` under `key`, compared in constant time.
    public static func isValidAuthenticationCode(
        _ code: some ContiguousBytes, for data: some ContiguousBytes, key: SecretBytes, hash: Hash = .sha256
    ) -> Bool {
        constantTimeEquals(authenticationCode(for: data, key: key, hash: hash), code.withUnsafeBytes { Array($0) })
    }

    /// HMAC over the concatenation of `data` pieces; the building block of HKDF.
    static func compute(
        _ digest: OpenSSL.Digest, key: UnsafePointer<UInt8>, _ keyCount: Int,
        data: [(UnsafePointer<UInt8>, Int)]
    ) -> [UInt8] {
        let context = MACContext(digest, key: key, count: keyCount)
        for (pointer, count) in data { context.update(pointer, count) }
        return context.finalize()
    }
}

@available(*, unavailable)
extension HMAC: Sendable {}

/// An EVP_MAC_CTX for HMAC; copied on write by `HMAC` for value semantics.
final class MACContext {
    private static let hmac: FetchedMAC = FetchedMAC("HMAC")

    /// The HMAC algorithm fetched once.
    final class FetchedMAC: @unchecked Sendable {  // immutable after init; a fetched EVP_MAC is shareable
        let pointer: OpaquePointer
        init(_ name: String) {
            guard let mac = EVP_MAC_fetch(nil, name, nil) else { fatalError("OpenSSL provides no \(name)") }
            pointer = mac
        }
        deinit { EVP_MAC_free(pointer) }
    }

    private let ctx: OpaquePointer
    private let size: Int

    init(_ digest: OpenSSL.Digest, key: UnsafePointer<UInt8>, count: Int) {
        guard let ctx = EVP_MAC_CTX_new(MACContext.hmac.pointer) else { fatalError("OpenSSL HMAC: out of memory") }
        var params = [
            OSSL_PARAM_construct_utf8_string(OpenSSL.CString.digest.pointer, digest.cName.pointer, 0),
            OSSL_PARAM_construct_end(),
        ]
        guard EVP_MAC_init(ctx, key, count, &params) == 1 else { fatalError("OpenSSL HMAC-\(digest.name) init failed") }
        self.ctx = ctx
        size = digest.size
    }

    init(copying other: MACContext) {
        guard let ctx = EVP_MAC_CTX_dup(other.ctx) else { fatalError("OpenSSL HMAC: out of memory") }
        self.ctx = ctx
        size = other.size
    }

    deinit { EVP_MAC_CTX_free(ctx) }  // cleanses the keyed state

    func update(_ pointer: UnsafePointer<UInt8>, _ count: Int) {
        guard count > 0 else { return }
        guard EVP_MAC_update(ctx, pointer, count) == 1 else { fatalError("OpenSSL HMAC update failed") }
    }

    func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        var length = 0
        guard EVP_MAC_final(ctx, &out, &length, out.count) == 1, length == size else {
            fatalError("OpenSSL HMAC final failed")
        }
        return out
    }
}
