import Foundation
import Synchronization

/// The core's time source, injected so tests can move time without sleeping.
public protocol CoreClock: Sendable {
    /// Seconds since the Unix epoch.
    func now() -> Int64
}

/// The system clock.
public struct SystemClock: CoreClock {
    public init() {}
    public func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}

/// A clock that moves only when told to (tests).
public final class ManualClock: CoreClock {
    private let current: Mutex<Int64>
    public init(_ start: Int64 = Int64(Date().timeIntervalSince1970)) { current = Mutex(start) }
    public func now() -> Int64 { current.withLock { $0 } }
    public func advance(by seconds: Int64) { current.withLock { $0 += seconds } }
}

/// Random identifiers with a type prefix: `wal_` + 26 base32 characters (128 bits).
enum Identifier {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    static func make(_ prefix: String) -> String {
        // Two 64-bit draws, not 16 one-byte ones: each draw is a getrandom call, and a batched import
        // makes a thousand ids at a time.
        var generator = SystemRandomNumberGenerator()
        let words = (generator.next() as UInt64, generator.next() as UInt64)
        let bytes = withUnsafeBytes(of: words) { Array($0) }
        return make(prefix, bytes: bytes)
    }

    /// An identifier whose 16 bytes are 6 bytes of `milliseconds` (big-endian) and 10 random bytes: ids
    /// made together sort together, so a bulk insert appends to the id index instead of touching a page
    /// per row. Still 80 random bits per millisecond.
    static func make(_ prefix: String, milliseconds: UInt64, random: UnsafeRawBufferPointer) -> String {
        precondition(random.count >= 10)
        // Written straight into the string's storage (a bulk create makes one per wallet): 16 bytes are
        // 128 bits, 26 base32 characters after the prefix and `_`.
        var prefix = prefix
        return prefix.withUTF8 { head in
            String(unsafeUninitializedCapacity: head.count + 27) { out in
                for (i, byte) in head.enumerated() { out[i] = byte }
                out[head.count] = UInt8(ascii: "_")
                var position = head.count + 1
                var buffer: UInt32 = 0
                var bits = 0
                for i in 0..<16 {
                    let byte = i < 6 ? UInt8(truncatingIfNeeded: milliseconds >> UInt64(8 * (5 - i))) : random[i - 6]
                    buffer = (buffer << 8) | UInt32(byte)
                    bits += 8
                    while bits >= 5 {
                        out[position] = alphabet[Int((buffer >> UInt32(bits - 5)) & 31)]
                        position += 1
                        bits -= 5
                    }
                }
                out[position] = alphabet[Int((buffer << UInt32(5 - bits)) & 31)]
                return position + 1
            }
        }
    }

    private static func make(_ prefix: String, bytes: [UInt8]) -> String {
        var out = Array(prefix.utf8) + [UInt8(ascii: "_")]
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
