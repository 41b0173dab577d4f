import TextFormats

/// A JSON value whose objects keep their member order, for JWT claims and JWK shapes.
///
/// `JSONValue.parse` is a strict [RFC 8259](https://www.rfc-editor.org/rfc/rfc8259) parser that
/// keeps member order, refuses duplicate member names, and bounds nesting depth; `serialized()`
/// writes compact JSON (no whitespace, `/` not escaped) in member order, which RFC 7638
/// thumbprints rely on. Integers that fit in `Int64` stay exact; other numbers are `Double`.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
    /// The integer, if this is an integer (or a double with an exact integer value).
    public var intValue: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value):
            guard value.rounded() == value, let exact = Int64(exactly: value) else { return nil }
            return exact
        default: return nil
        }
    }
    /// The number as a double, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
    /// The object, if this is one.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }
    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

/// A JSON object that keeps its members in insertion order.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The member names in order.
    public private(set) var keys: [String] = []
    private var values: [String: JSONValue] = [:]

    /// An empty object.
    public init() {}

    /// Members in the given order; a repeated name keeps its first position and its last value.
    public init(_ members: [(String, JSONValue)]) {
        for (key, value) in members { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// The number of members.
    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// Reads a member; setting nil removes it, setting a new name appends it.
    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            if let newValue {
                if values.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if values.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// The members in order.
    public func makeIterator() -> some IteratorProtocol<(key: String, value: JSONValue)> {
        keys.lazy.map { (key: $0, value: values[$0]!) }.makeIterator()
    }

    /// Equal when the same members have the same values, whatever their order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.values == rhs.values }
    public func hash(into hasher: inout Hasher) { hasher.combine(values) }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: CustomStringConvertible {
    /// The compact serialization.
    public var description: String { serialized() }
}

// MARK: - Serialization

extension JSONValue {
    /// Compact JSON text in member order: no whitespace, `/` unescaped, non-ASCII kept as UTF-8,
    /// control characters as `\uXXXX`. Non-finite doubles, which JSON cannot carry, become `null`.
    public func serialized() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    /// `serialized()` as UTF-8 bytes.
    public func serializedBytes() -> [UInt8] { Array(serialized().utf8) }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value):
            if !value.isFinite {
                out += "null"
            } else if value.rounded() == value, let exact = Int64(exactly: value), abs(value) < 1e15 {
                out += String(exact)
            } else {
                out += "\(value)"
            }
        case .string(let value): JSONString.append(value, to: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (index, member) in object.enumerated() {
                if index > 0 { out += "," }
                JSONString.append(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }
}

// MARK: - Parsing

extension JSONValue {
    /// Why a text is not acceptable JSON.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The byte offset where parsing stopped.
        public let offset: Int
        /// What was wrong there.
        public let reason: String
        public var description: String { "JSON: \(reason) at byte offset \(offset)" }
    }

    /// Parses one JSON value from UTF-8 `bytes`; whitespace may surround it, nothing else may follow.
    /// - Parameter maxDepth: the deepest nesting of arrays and objects accepted.
    /// - Throws: `ParseError` with the byte offset, for bad syntax, invalid UTF-8, a duplicate
    ///   member name, or nesting deeper than `maxDepth`.
    public static func parse<Bytes: Collection>(_ bytes: Bytes, maxDepth: Int = 64) throws(ParseError) -> JSONValue
    where Bytes.Element == UInt8 {
        var parser = JSONParser(bytes: Array(bytes), maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index != parser.bytes.count { throw parser.error("trailing characters after the value") }
        return value
    }

    /// Parses one JSON value from `text`.
    public static func parse(_ text: String, maxDepth: Int = 64) throws(ParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func error(_ reason: String) -> JSONValue.ParseError {
        JSONValue.ParseError(offset: index, reason: reason)
    }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func expectLiteral(_ literal: String, _ value: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
        let expected = Array(literal.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("invalid literal")
        }
        index += expected.count
        return value
    }

    mutating func parseValue(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "n"): return try expectLiteral("null", .null)
        case UInt8(ascii: "t"): return try expectLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try expectLiteral("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "["):
            guard depth < maxDepth else { throw error("nesting deeper than \(maxDepth)") }
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw error("unterminated array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                } else {
                    throw error("expected ',' or ']'")
                }
            }
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { throw error("nesting deeper than \(maxDepth)") }
            index += 1
            var object = JSONObject()
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("expected a member name")
                }
                let keyOffset = index
                let key = try parseString()
                if object[key] != nil {
                    throw JSONValue.ParseError(offset: keyOffset, reason: "duplicate member name \"\(key)\"")
                }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipWhitespace()
                object[key] = try parseValue(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw error("unterminated object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(object)
                } else {
                    throw error("expected ',' or '}'")
                }
            }
        default:
            return try parseNumber()
        }
    }

    mutating func parseNumber() throws(JSONValue.ParseError) -> JSONValue {
        let start = index
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid value") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit in the exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else {
            throw JSONValue.ParseError(offset: start, reason: "number out of range")
        }
        return .double(value)
    }

    mutating func parseHex4() throws(JSONValue.ParseError) -> UInt32 {
        guard bytes.count - index >= 4,
            let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw error("invalid \\u escape") }
        index += 4
        return value
    }

    mutating func parseString() throws(JSONValue.ParseError) -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ parser: JSONParser, upTo end: Int) throws(JSONValue.ParseError) -> String {
            guard let run = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else {
                // At the first byte that is not UTF-8, not at the run's start.
                var decoder = Unicode.UTF8.ForwardParser()
                var iterator = parser.bytes[runStart..<end].makeIterator()
                var offset = runStart
                while case .valid(let encoded) = decoder.parseScalar(from: &iterator) { offset += encoded.count }
                throw JSONValue.ParseError(offset: offset, reason: "invalid UTF-8 in a string")
            }
            return run
        }
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = try flush(self, upTo: index)
                index += 1
                // Without escapes (every escape appends a scalar) the run is the whole string: no copy.
                if scalars.isEmpty { return run }
                scalars.append(contentsOf: run.unicodeScalars)
                return String(scalars)
            } else if byte == UInt8(ascii: "\\") {
                scalars.append(contentsOf: try flush(self, upTo: index).unicodeScalars)
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("unpaired surrogate") }
                    scalars.append(scalar)
                default:
                    throw JSONValue.ParseError(offset: index - 1, reason: "invalid escape")
                }
                runStart = index
            } else if byte < 0x20 {
                throw error("control character in a string")
            } else {
                index += 1
            }
        }
    }
}

// MARK: - Codable

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            // Keyed decoding does not promise member order; use `JSONValue.parse` when order matters.
            let dictionary = try container.decode([String: JSONValue].self)
            self = .object(JSONObject(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in object { try container.encode(member.value, forKey: MemberKey(member.key)) }
        }
    }

    private struct MemberKey: CodingKey {
        let stringValue: String
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
