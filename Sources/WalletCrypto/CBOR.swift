/// A CBOR data item: the definite-length subset of [RFC 8949](https://www.rfc-editor.org/rfc/rfc8949)
/// that COSE and AWS Nitro attestation documents use.
///
/// Maps keep their entries in order, so a decoded item re-encodes to the same entry order and
/// an item built in code encodes in the order it was written. Encode with `CBOREncoder`
/// (or `encoded()`), decode with `CBORDecoder`.
public indirect enum CBOR: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer `-1 - n`.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBOR])
    /// Major type 5: a map, entries in order.
    case map([MapEntry])
    /// Major type 6: a tagged item (tag 18 is COSE_Sign1).
    case tagged(UInt64, CBOR)
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null
    /// Simple value 23.
    case undefined
    /// A half, single or double precision float.
    case float(Double)

    /// One key/value pair of a map.
    public struct MapEntry: Sendable, Hashable {
        public var key: CBOR
        public var value: CBOR
        public init(_ key: CBOR, _ value: CBOR) {
            self.key = key
            self.value = value
        }
    }

    /// An integer item: major type 0 for non-negative values, 1 for negative ones.
    public static func int(_ value: Int64) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The integer value if it fits in `Int64`.
    public var intValue: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }
    /// The unsigned value, for major type 0.
    public var unsignedValue: UInt64? {
        if case .unsigned(let n) = self { return n }
        return nil
    }
    /// The bytes, for a byte string.
    public var bytesValue: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }
    /// The text, for a text string.
    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }
    /// The elements, for an array.
    public var arrayValue: [CBOR]? {
        if case .array(let value) = self { return value }
        return nil
    }
    /// The entries, for a map.
    public var mapValue: [MapEntry]? {
        if case .map(let value) = self { return value }
        return nil
    }
    /// The boolean, for `true`/`false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
    /// True for `null`.
    public var isNull: Bool { self == .null }

    /// The value stored under `key` when this is a map; the first match wins.
    public subscript(key: CBOR) -> CBOR? {
        mapValue?.first { $0.key == key }?.value
    }

    /// The value stored under the text key `key` when this is a map.
    public subscript(key: String) -> CBOR? { self[.text(key)] }

    /// The encoding of this item, in the deterministic shortest form for integers and lengths.
    public func encoded() -> [UInt8] { CBOREncoder().encode(self) }

    /// A short name of the item's kind, for error messages.
    public var kindName: String {
        switch self {
        case .unsigned, .negative: "integer"
        case .bytes: "byte string"
        case .text: "text string"
        case .array: "array"
        case .map: "map"
        case .tagged: "tagged item"
        case .bool: "boolean"
        case .null: "null"
        case .undefined: "undefined"
        case .float: "float"
        }
    }
}

extension CBOR: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: CBOR...) { self = .array(elements) }
    /// A map literal; its entries keep the order written.
    public init(dictionaryLiteral elements: (CBOR, CBOR)...) { self = .map(elements.map { MapEntry($0.0, $0.1) }) }
    public init(nilLiteral: ()) { self = .null }
}

/// Why bytes are not an acceptable CBOR item, and where.
public struct CBORError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Hashable, Sendable {
        /// The input ends inside an item.
        case truncated
        /// Bytes follow the single top-level item.
        case trailingBytes
        /// An indefinite-length string, array or map (not accepted).
        case indefiniteLength
        /// Additional information 28...30, reserved by RFC 8949.
        case reservedAdditionalInfo
        /// Nesting deeper than the decoder's limit.
        case depthExceeded
        /// Input larger than the decoder's limit.
        case inputTooLarge
        /// A container with more entries than the decoder's limit or the input could hold.
        case containerTooLarge
        /// A text string that is not valid UTF-8.
        case invalidUTF8
        /// A map key that is neither an integer nor a text string.
        case invalidMapKey
        /// The same key twice in one map.
        case duplicateMapKey
        /// A simple value other than false, true, null, undefined, or a break outside a container.
        case unsupportedSimpleValue
    }

    /// What went wrong.
    public let code: Code
    /// The byte offset of the item (or header) at fault.
    public let offset: Int
    /// Details.
    public let message: String

    public init(_ code: Code, at offset: Int, _ message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String { "CBOR \(code.rawValue) at byte offset \(offset): \(message)" }

    /// Equal by code and offset.
    public static func == (lhs: CBORError, rhs: CBORError) -> Bool {
        lhs.code == rhs.code && lhs.offset == rhs.offset
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(offset)
    }
}
