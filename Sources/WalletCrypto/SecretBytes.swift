internal import CSodium

/// Bytes that must never leak: a private key, a password, a derived key.
///
/// The buffer is zeroed when the last reference goes away, two values compare in constant
/// time, and neither `description` nor `debugDescription` shows the bytes (STYLE.md "Secrets").
public struct SecretBytes: Sendable {
    /// Owns the heap buffer so it can be wiped in `deinit`; immutable after init, hence Sendable.
    private final class Storage: @unchecked Sendable {  // immutable after init; wiped only in deinit
        let pointer: UnsafeMutableRawBufferPointer

        init(count: Int) {
            pointer = .allocate(byteCount: max(count, 1), alignment: 16)
            pointer.initializeMemory(as: UInt8.self, repeating: 0)
            self.count = count
        }
        let count: Int

        deinit {
            sodium_memzero(pointer.baseAddress, pointer.count)
            pointer.deallocate()
        }
    }

    private let storage: Storage

    /// The number of secret bytes.
    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.count == 0 }

    /// Copies `bytes` into a fresh secret buffer. The caller should wipe its own copy.
    ///
    /// Contiguous input is copied straight into the secret buffer; other sequences go through a scratch
    /// array that this initializer owns alone, so wiping it really zeroes those bytes (wiping a shared
    /// copy would only trigger copy-on-write and zero the duplicate).
    public init<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let direct: Storage? = bytes.withContiguousStorageIfAvailable { buffer in
            let storage = Storage(count: buffer.count)
            if let base = buffer.baseAddress, buffer.count > 0 {
                storage.pointer.baseAddress!.copyMemory(from: base, byteCount: buffer.count)
            }
            return storage
        }
        if let direct {
            storage = direct
            return
        }
        var scratch = [UInt8]()
        scratch.reserveCapacity(bytes.underestimatedCount)
        for byte in bytes { scratch.append(byte) }
        storage = Storage(count: scratch.count)
        scratch.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 {
                storage.pointer.baseAddress!.copyMemory(from: base, byteCount: buffer.count)
            }
        }
        SecretBytes.wipe(&scratch)
    }

    /// A secret buffer of `count` bytes filled by `body`, which writes into it directly so the
    /// secret is never copied through an intermediate array.
    public init(count: Int, fill body: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        storage = Storage(count: count)
        try body(UnsafeMutableRawBufferPointer(rebasing: storage.pointer[0..<count]))
    }

    /// `count` bytes from the system CSPRNG.
    public static func random(count: Int) -> SecretBytes {
        SecretBytes(count: count) { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
    }

    /// Gives `body` read access to the bytes; do not let them escape it.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage.pointer[0..<storage.count]))
    }

    /// Copies the bytes out; for APIs that need an array. Wipe the copy with `SecretBytes.wipe`.
    public func unsafeCopy() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Overwrites `byteCount` bytes at `base` with zeros, in a way the compiler cannot drop as a dead store
    /// (libsodium's `sodium_memzero`): for the scratch buffers of other modules that held a secret.
    public static func wipe(_ base: UnsafeMutableRawPointer?, byteCount: Int) {
        if let base, byteCount > 0 { sodium_memzero(base, byteCount) }
    }

    /// Overwrites `buffer` with zeros (see ``wipe(_:byteCount:)``).
    public static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        wipe(buffer.baseAddress, byteCount: buffer.count)
    }

    /// Overwrites an array holding secret bytes with zeros.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
        }
    }
}

extension SecretBytes: Equatable {
    /// Constant-time comparison: the time taken does not depend on where the bytes differ.
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { a in
            rhs.withUnsafeBytes { b in
                constantTimeEquals(a, b)
            }
        }
    }
}

extension SecretBytes: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
    public var debugDescription: String { description }
}

/// Compares two byte buffers in time that depends only on their length.
public func constantTimeEquals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    if a.count == 0 { return true }
    return sodium_memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
}

/// Compares two byte sequences in time that depends only on their length.
public func constantTimeEquals<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
where A.Element == UInt8, B.Element == UInt8 {
    let x = Array(a)
    let y = Array(b)
    return x.withUnsafeBytes { xb in y.withUnsafeBytes { yb in constantTimeEquals(xb, yb) } }
}
