internal import COpenSSL
internal import CSodium
import Foundation
import Synchronization

/// An OpenSSL message-digest context; copied on write so the public hash structs have value semantics.
final class DigestContext {
    let pointer: OpaquePointer
    let digest: OpenSSL.Digest

    init(_ digest: OpenSSL.Digest) {
        guard let ctx = EVP_MD_CTX_new(), EVP_DigestInit_ex(ctx, digest.pointer, nil) == 1 else {
            fatalError("OpenSSL could not start \(digest.name)")
        }
        pointer = ctx
        self.digest = digest
    }

    init(copying other: DigestContext) {
        guard let ctx = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(ctx, other.pointer) == 1 else {
            fatalError("OpenSSL could not copy a \(other.digest.name) state")
        }
        pointer = ctx
        digest = other.digest
    }

    deinit { EVP_MD_CTX_free(pointer) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        guard EVP_DigestUpdate(pointer, bytes.baseAddress, bytes.count) == 1 else {
            fatalError("OpenSSL \(digest.name) update failed")
        }
    }

    /// The digest of everything absorbed; `self` is not used afterwards.
    func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: digest.size)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(pointer, &out, &length) == 1 else {
            fatalError("OpenSSL \(digest.name) final failed")
        }
        return out
    }

    /// One-shot digest.
    static func hash(_ digest: OpenSSL.Digest, _ data: some ContiguousBytes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: digest.size)
        let ok = withInputBytes(data) { pointer, count in
            EVP_Digest(pointer, count, &out, nil, digest.pointer, nil) == 1
        }
        guard ok else { fatalError("OpenSSL \(digest.name) failed") }
        return out
    }
}

/// SHA-256 (FIPS 180-4): one-shot with `hash(data:)`, or incremental with `update` and `finalize`.
public struct SHA256 {
    private var context = DigestContext(.sha256)

    /// The digest size in bytes.
    public static let byteCount = 32

    /// A fresh hash state.
    public init() {}

    /// The 32-byte SHA-256 digest of `data`.
    public static func hash(data: some ContiguousBytes) -> [UInt8] {
        withInputBytes(data) { pointer, count in
            [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
                hash(UnsafeRawBufferPointer(start: pointer, count: count), into: buffer.baseAddress!)
                initialized = byteCount
            }
        }
    }

    /// The longest input that pads to one 64-byte block.
    static let oneBlockInput = 55

    /// Whether a one-shot hash of one block (up to ``oneBlockInput`` bytes) goes through libsodium rather
    /// than OpenSSL. Why: libsodium's plain function is faster there, having no context to allocate; from
    /// two blocks on OpenSSL's SHA extensions win (docs/bench.md "Choices and what they measured"). True
    /// unless switched off. A tuning mechanism deep in a primitive, so one process-wide switch: an
    /// executable sets it once at startup, before any work (the command line from
    /// `WALLETOPS_TUNING_OFF=sha256-one-block`; docs/bench.md "Tuning mechanisms and how to switch them off").
    public static var hashesOneBlockThroughLibsodium: Bool {
        get { oneBlockSwitch.load(ordering: .relaxed) }
        set { oneBlockSwitch.store(newValue, ordering: .relaxed) }
    }
    private static let oneBlockSwitch = Atomic<Bool>(true)

    /// The library a one-shot hash of `count` bytes goes through.
    enum Route: Equatable {
        case libsodium, openSSL
    }

    /// The library ``hash(_:into:)`` uses for `count` bytes now.
    @inline(__always)
    static func route(count: Int) -> Route {
        count <= oneBlockInput && hashesOneBlockThroughLibsodium ? .libsodium : .openSSL
    }

    /// The SHA-256 digest of the bytes of `input`, written at `digest` (32 bytes), with nothing allocated
    /// by the caller: for inputs hashed per item, such as an address's index key.
    public static func hash(_ input: UnsafeRawBufferPointer, into digest: UnsafeMutableRawPointer) {
        let out = digest.assumingMemoryBound(to: UInt8.self)
        guard route(count: input.count) == .openSSL else {
            _ = crypto_hash_sha256(out, input.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(input.count))
            return
        }
        guard EVP_Digest(input.baseAddress, input.count, out, nil, OpenSSL.Digest.sha256.pointer, nil) == 1 else {
            fatalError("OpenSSL SHA256 failed")
        }
    }

    /// Absorbs more input.
    public mutating func update(data: some ContiguousBytes) {
        if !isKnownUniquelyReferenced(&context) { context = DigestContext(copying: context) }
        data.withUnsafeBytes { context.update($0) }
    }

    /// The digest of everything absorbed so far; the state can keep absorbing afterwards.
    public func finalize() -> [UInt8] { DigestContext(copying: context).finalize() }
}

/// SHA-384 (FIPS 180-4): one-shot with `hash(data:)`, or incremental with `update` and `finalize`.
public struct SHA384 {
    private var context = DigestContext(.sha384)

    /// The digest size in bytes.
    public static let byteCount = 48

    /// A fresh hash state.
    public init() {}

    /// The 48-byte SHA-384 digest of `data`.
    public static func hash(data: some ContiguousBytes) -> [UInt8] { DigestContext.hash(.sha384, data) }

    /// Absorbs more input.
    public mutating func update(data: some ContiguousBytes) {
        if !isKnownUniquelyReferenced(&context) { context = DigestContext(copying: context) }
        data.withUnsafeBytes { context.update($0) }
    }

    /// The digest of everything absorbed so far; the state can keep absorbing afterwards.
    public func finalize() -> [UInt8] { DigestContext(copying: context).finalize() }
}

/// SHA-512 (FIPS 180-4): one-shot with `hash(data:)`, or incremental with `update` and `finalize`.
public struct SHA512 {
    private var context = DigestContext(.sha512)

    /// The digest size in bytes.
    public static let byteCount = 64

    /// A fresh hash state.
    public init() {}

    /// The 64-byte SHA-512 digest of `data`.
    public static func hash(data: some ContiguousBytes) -> [UInt8] { DigestContext.hash(.sha512, data) }

    /// Absorbs more input.
    public mutating func update(data: some ContiguousBytes) {
        if !isKnownUniquelyReferenced(&context) { context = DigestContext(copying: context) }
        data.withUnsafeBytes { context.update($0) }
    }

    /// The digest of everything absorbed so far; the state can keep absorbing afterwards.
    public func finalize() -> [UInt8] { DigestContext(copying: context).finalize() }
}

// The incremental states wrap a mutable C context: keep each one in one task.
@available(*, unavailable)
extension SHA256: Sendable {}

@available(*, unavailable)
extension SHA384: Sendable {}

@available(*, unavailable)
extension SHA512: Sendable {}
