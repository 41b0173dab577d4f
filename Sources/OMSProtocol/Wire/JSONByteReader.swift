/// A forward-only reader of compact JSON bytes, for the bulk messages whose decoding is on the hot path
/// (`ImportWalletsRequest(jsonBytes:)`, `ImportWalletsResponse(jsonBytes:)`): strings come straight out
/// of the buffer, with no tree of `JSONValue`s in between.
///
/// It reads only what those messages hold (objects, arrays, strings, integers, `null`); every method
/// answers nil for anything else, and the caller then falls back to the general parser, which reads any
/// JSON ([RFC 8259](https://www.rfc-editor.org/rfc/rfc8259)) and names what is wrong.
struct JSONByteReader: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Whether only whitespace is left.
    mutating func atEnd() -> Bool {
        skipWhitespace()
        return position == bytes.count
    }

    /// Consumes `byte` (after whitespace) if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Consumes `null` if it is next.
    mutating func consumeNull() -> Bool {
        skipWhitespace()
        guard position + 4 <= bytes.count, bytes[position] == UInt8(ascii: "n"), bytes[position + 1] == 0x75,
            bytes[position + 2] == 0x6c, bytes[position + 3] == 0x6c
        else { return false }
        position += 4
        return true
    }

    /// The next member's key (with its colon consumed), nil at the object's end or on anything else.
    /// `first` is whether no member was read yet (no comma before it).
    mutating func nextKey(first: Bool) -> String? {
        if consume(UInt8(ascii: "}")) {
            position -= 1
            return nil
        }
        if !first && !consume(UInt8(ascii: ",")) { return nil }
        guard let key = string(), consume(UInt8(ascii: ":")) else { return nil }
        return key
    }

    /// A string without escapes or control characters (the only strings these messages carry in
    /// practice; anything else goes to the general parser).
    mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                // Invalid UTF-8 would have been repaired: let the general parser judge it.
                guard text.utf8.count == position - 1 - start else { return nil }
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            position += 1
        }
        return nil
    }

    /// An integer of at most 18 digits, optionally negative.
    mutating func integer() -> Int? {
        skipWhitespace()
        var negative = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        let start = position
        var value = 0
        while position < bytes.count, position - start < 18, (0x30...0x39).contains(bytes[position]) {
            value = value * 10 + Int(bytes[position] - 0x30)
            position += 1
        }
        guard position > start, bytes[start] != 0x30 || position == start + 1 else { return nil }
        if position < bytes.count {
            // A fraction, an exponent or more digits: not an integer this reader takes.
            switch bytes[position] {
            case 0x30...0x39, UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        return negative ? -value : value
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0a, 0x0d, 0x09: position += 1
            default: return
            }
        }
    }
}
