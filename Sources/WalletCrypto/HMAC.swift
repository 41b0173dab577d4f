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

    /// HMAC over the concatenation of `data` pieces into secret memory, for tags that are key material
    /// (BIP-32 and SLIP-10 split theirs into a child key and a chain code).
    static func secretCode(
        _ hash: Hash, key: UnsafeRawBufferPointer, data: [UnsafeRawBufferPointer]
    ) -> SecretBytes {
        let context = withInputBytes(key) { MACContext(hash.digest, key: $0, count: $1) }
        for piece in data where piece.count > 0 {
            context.update(piece.baseAddress!.assumingMemoryBound(to: UInt8.self), piece.count)
        }
        return SecretBytes(count: hash.byteCount) { context.finalize(into: $0) }
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

/// HMAC (RFC 2104 section 2) over an EVP digest context: H((K ^ opad) || H((K ^ ipad) || m)).
///
/// Built on the digest rather than EVP_MAC because OpenSSL 3's EVP_MAC looks its digest up by name
/// on every init, which made a short HMAC three times slower (HKDF and HPKE make many).
/// Copied on write by `HMAC` for value semantics.
final class MACContext {
    private let digest: OpenSSL.Digest
    private let inner: OpaquePointer
    /// K0 ^ opad, one block; secret, wiped in deinit.
    private var outerPad: [UInt8]

    init(_ digest: OpenSSL.Digest, key: UnsafePointer<UInt8>, count: Int) {
        let blockSize = Int(EVP_MD_get_block_size(digest.pointer))
        // K0: the key, hashed first when longer than a block, then zero-padded to a block.
        var innerPad = [UInt8](repeating: 0, count: blockSize)
        if count > blockSize {
            guard EVP_Digest(key, count, &innerPad, nil, digest.pointer, nil) == 1 else {
                fatalError("OpenSSL \(digest.name) failed")
            }
        } else {
            innerPad.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: key, count: count) }
        }
        outerPad = innerPad
        for i in 0..<blockSize {
            innerPad[i] ^= 0x36
            outerPad[i] ^= 0x5c
        }
        defer { SecretBytes.wipe(&innerPad) }
        guard let ctx = EVP_MD_CTX_new(), EVP_DigestInit_ex(ctx, digest.pointer, nil) == 1,
            EVP_DigestUpdate(ctx, innerPad, innerPad.count) == 1
        else { fatalError("OpenSSL HMAC-\(digest.name) init failed") }
        inner = ctx
        self.digest = digest
    }

    init(copying other: MACContext) {
        guard let ctx = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(ctx, other.inner) == 1 else {
            fatalError("OpenSSL HMAC: copying the state failed")
        }
        inner = ctx
        digest = other.digest
        outerPad = other.outerPad
    }

    deinit {
        EVP_MD_CTX_free(inner)  // cleanses the keyed inner state
        SecretBytes.wipe(&outerPad)
    }

    func update(_ pointer: UnsafePointer<UInt8>, _ count: Int) {
        guard count > 0 else { return }
        guard EVP_DigestUpdate(inner, pointer, count) == 1 else { fatalError("OpenSSL HMAC update failed") }
    }

    /// The tag; the context is spent afterwards (`HMAC.finalize` works on a copy).
    func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: digest.size)
        out.withUnsafeMutableBytes { finalize(into: $0) }
        return out
    }

    /// The tag written into `out` (exactly the digest size), so a secret tag never sits in an array.
    func finalize(into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count == digest.size, "HMAC: the output must be the digest size")
        // outer input: (K0 ^ opad) || H((K0 ^ ipad) || m)
        var outerInput = outerPad + [UInt8](repeating: 0, count: digest.size)
        defer { SecretBytes.wipe(&outerInput) }
        let ok = outerInput.withUnsafeMutableBufferPointer { buffer in
            EVP_DigestFinal_ex(inner, buffer.baseAddress! + outerPad.count, nil) == 1
                && EVP_DigestInit_ex(inner, digest.pointer, nil) == 1
                && EVP_DigestUpdate(inner, buffer.baseAddress!, buffer.count) == 1
                && EVP_DigestFinal_ex(inner, out.baseAddress!.assumingMemoryBound(to: UInt8.self), nil) == 1
        }
        guard ok else { fatalError("OpenSSL HMAC final failed") }
    }
}
