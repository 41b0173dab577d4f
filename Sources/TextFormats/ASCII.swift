/// Byte classes of ASCII text, for the parsers of every layer (hex, base58, CSV, key files): one
/// definition of whitespace and of a hex digit.
///
/// Inlinable: the key readers test every byte of their input with them.
public enum ASCII {
    /// Space, tab, LF, VT, FF, CR.
    @inlinable @inline(__always)
    public static func isWhitespace(_ byte: UInt8) -> Bool {
        // Unsigned wrap-around: one comparison for 0x09...0x0D (a range pattern was not always inlined).
        byte == 0x20 || byte &- 0x09 <= 0x04
    }

    /// Printable ASCII, space to tilde.
    @inlinable @inline(__always)
    public static func isPrintable(_ byte: UInt8) -> Bool { byte &- 0x20 <= 0x5E }

    /// The value of an ASCII hex digit (either case), or nil.
    @inlinable @inline(__always)
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte &- 0x30
        case 0x41...0x46: byte &- 0x41 &+ 10
        case 0x61...0x66: byte &- 0x61 &+ 10
        default: nil
        }
    }

    /// `bytes` without leading and trailing ``isWhitespace(_:)`` bytes (a view; nothing is copied).
    @inlinable
    public static func trimmed<Bytes: BidirectionalCollection>(_ bytes: Bytes) -> Bytes.SubSequence
    where Bytes.Element == UInt8 {
        var text = bytes[...]
        while let first = text.first, isWhitespace(first) { text = text.dropFirst() }
        while let last = text.last, isWhitespace(last) { text = text.dropLast() }
        return text
    }
}
