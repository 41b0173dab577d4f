/// A forward-only reader of compact JSON bytes, for the bulk messages whose decoding is on the hot path
/// (`ImportWalletsRequest(jsonBytes:)`, `ImportWalletsResponse(jsonBytes:)`,
/// `CreateWalletsResponse(jsonBytes:)`): strings come straight out of the buffer, with no tree of
/// `JSONValue`s in between.
///
/// It reads only what those messages hold (objects, arrays, strings, integers, booleans, `null`) and
/// only the members they define; every method answers nil (or false) for anything else, and the caller
/// then falls back to the general parser, which reads any JSON
/// ([RFC 8259](https://www.rfc-editor.org/rfc/rfc8259)) and names what is wrong and where.
struct JSONByteReader: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// `read` over a reader of all of `bytes`; nil when it answers nil or leaves more than whitespace.
    @inline(__always)
    static func read<Value>(_ bytes: [UInt8], _ read: (inout JSONByteReader) -> Value?) -> Value? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONByteReader(buffer)
            guard let value = read(&reader), reader.atEnd() else { return nil }
            return value
        }
    }

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
    mutating func consumeNull() -> Bool { consumeLiteral("null") }

    /// Consumes `literal` (after whitespace) if it is next.
    @inline(__always)
    private mutating func consumeLiteral(_ literal: StaticString) -> Bool {
        skipWhitespace()
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[position + offset] != literal.utf8Start[offset] { return false }
        position += count
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

    /// An object: `member` reads each member's value after its key and answers false for a member it
    /// does not take. False when it is not an object.
    ///
    /// This and the other combinators are always inlined, so a reader's closure and the locals it fills
    /// compile as a hand-written loop would (with these and `Wallet.read` called instead, the ImportWallets
    /// reply decoder ran about 6% more instructions than its hand-written loops, by callgrind).
    @inline(__always)
    mutating func object(_ member: (inout JSONByteReader, String) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        var first = true
        while let key = nextKey(first: first) {
            first = false
            guard member(&self, key) else { return false }
        }
        return consume(UInt8(ascii: "}"))
    }

    /// An array, each element read by `element`; nil when it is not an array or an element is nil.
    /// `capacity` is the count the caller expects, reserved up front.
    @inline(__always)
    mutating func array<Element>(reserving capacity: Int, _ element: (inout JSONByteReader) -> Element?)
        -> [Element]?
    {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(capacity)
        if consume(UInt8(ascii: "]")) { return elements }
        repeat {
            guard let value = element(&self) else { return nil }
            elements.append(value)
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? elements : nil
    }

    /// A reply of one member, `{"<key>":[...]}`, its elements read by `element`.
    @inline(__always)
    mutating func reply<Element>(
        _ key: String, reserving capacity: Int, _ element: (inout JSONByteReader) -> Element?
    ) -> [Element]? {
        guard consume(UInt8(ascii: "{")), nextKey(first: true) == key,
            let elements = array(reserving: capacity, element), consume(UInt8(ascii: "}"))
        else { return nil }
        return elements
    }

    /// A string member's value (see ``string()``) into `value`; false for anything else.
    @inline(__always)
    mutating func string(into value: inout String?) -> Bool {
        value = string()
        return value != nil
    }

    /// An optional string member's value: `null` leaves `value` nil. False for anything else.
    @inline(__always)
    mutating func optionalString(into value: inout String?) -> Bool {
        consumeNull() || string(into: &value)
    }

    /// `true` or `false`.
    mutating func bool() -> Bool? {
        if consumeLiteral("true") { return true }
        if consumeLiteral("false") { return false }
        return nil
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
