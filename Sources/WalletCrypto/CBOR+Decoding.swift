/// Reads one `CBOR` item from untrusted bytes, within explicit bounds.
///
/// Accepts definite lengths only ([RFC 8949](https://www.rfc-editor.org/rfc/rfc8949)); refuses
/// indefinite lengths, reserved header values, trailing bytes, truncated input, nesting deeper
/// than `Limits.maxDepth`, input larger than `Limits.maxInputSize`, containers with more entries
/// than `Limits.maxContainerCount`, invalid UTF-8 text, map keys other than integers and text,
/// and duplicate map keys. Every error carries the byte offset of the item at fault.
/// Non-shortest integer encodings are accepted (signatures cover the bytes as received).
public struct CBORDecoder: Sendable {
    /// The bounds a decoder enforces.
    public struct Limits: Sendable, Hashable {
        /// The deepest nesting of arrays, maps and tags; the top-level item is depth 1.
        public var maxDepth: Int
        /// The largest input accepted, in bytes.
        public var maxInputSize: Int
        /// The most elements in one array or entries in one map.
        public var maxContainerCount: Int

        /// Bounds for a decoder.
        public init(maxDepth: Int = 16, maxInputSize: Int = 1 << 20, maxContainerCount: Int = 4096) {
            self.maxDepth = maxDepth
            self.maxInputSize = maxInputSize
            self.maxContainerCount = maxContainerCount
        }
    }

    /// The bounds this decoder enforces.
    public let limits: Limits

    /// A decoder with `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Decodes exactly one item that spans all of `bytes`.
    /// - Throws: `CBORError` with the byte offset at fault.
    public func decode<Bytes: Collection>(_ bytes: Bytes) throws(CBORError) -> CBOR where Bytes.Element == UInt8 {
        guard bytes.count <= limits.maxInputSize else {
            throw CBORError(
                .inputTooLarge, at: 0, "input of \(bytes.count) bytes exceeds the limit \(limits.maxInputSize)")
        }
        var reader = Reader(bytes: Array(bytes), limits: limits)
        let item = try reader.readItem(depth: 1)
        guard reader.offset == reader.bytes.count else {
            throw CBORError(
                .trailingBytes, at: reader.offset,
                "\(reader.bytes.count - reader.offset) bytes follow the top-level item")
        }
        return item
    }
}

private struct Reader {
    let bytes: [UInt8]
    let limits: CBORDecoder.Limits
    var offset = 0

    init(bytes: [UInt8], limits: CBORDecoder.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    var remaining: Int { bytes.count - offset }

    mutating func readByte(itemStart: Int) throws(CBORError) -> UInt8 {
        guard offset < bytes.count else {
            throw CBORError(.truncated, at: itemStart, "input ends at \(bytes.count) inside the item")
        }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readBigEndian(_ count: Int, itemStart: Int) throws(CBORError) -> UInt64 {
        guard remaining >= count else {
            throw CBORError(.truncated, at: itemStart, "header needs \(count) more bytes, input ends at \(bytes.count)")
        }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + count] { value = value << 8 | UInt64(byte) }
        offset += count
        return value
    }

    mutating func readBytes(_ length: UInt64, itemStart: Int) throws(CBORError) -> ArraySlice<UInt8> {
        guard length <= UInt64(remaining) else {
            throw CBORError(
                .truncated, at: itemStart, "string of \(length) bytes but only \(remaining) bytes remain")
        }
        let count = Int(length)
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Each element takes at least one byte, so a count above what remains is refused before
    /// anything is allocated.
    func checkCount(_ count: UInt64, perEntry: UInt64, kind: String, itemStart: Int) throws(CBORError) -> Int {
        guard count <= UInt64(limits.maxContainerCount) else {
            throw CBORError(
                .containerTooLarge, at: itemStart,
                "\(kind) of \(count) entries exceeds the limit \(limits.maxContainerCount)")
        }
        guard count * perEntry <= UInt64(remaining) else {
            throw CBORError(.truncated, at: itemStart, "\(kind) of \(count) entries but only \(remaining) bytes remain")
        }
        return Int(count)
    }

    mutating func readItem(depth: Int) throws(CBORError) -> CBOR {
        let start = offset
        guard depth <= limits.maxDepth else {
            throw CBORError(.depthExceeded, at: start, "nesting deeper than \(limits.maxDepth)")
        }
        let initial = try readByte(itemStart: start)
        let major = initial >> 5
        let info = initial & 0x1F

        if major == 7 { return try readSimpleOrFloat(info: info, start: start) }

        let argument: UInt64
        switch info {
        case 0..<24: argument = UInt64(info)
        case 24: argument = try readBigEndian(1, itemStart: start)
        case 25: argument = try readBigEndian(2, itemStart: start)
        case 26: argument = try readBigEndian(4, itemStart: start)
        case 27: argument = try readBigEndian(8, itemStart: start)
        case 31:
            throw CBORError(.indefiniteLength, at: start, "indefinite length (major type \(major)) is not accepted")
        default:
            throw CBORError(.reservedAdditionalInfo, at: start, "reserved additional information \(info)")
        }

        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(Array(try readBytes(argument, itemStart: start)))
        case 3:
            let raw = try readBytes(argument, itemStart: start)
            guard let text = String(validating: raw, as: UTF8.self) else {
                throw CBORError(.invalidUTF8, at: start, "text string is not valid UTF-8")
            }
            return .text(text)
        case 4:
            let count = try checkCount(argument, perEntry: 1, kind: "array", itemStart: start)
            var elements: [CBOR] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try readItem(depth: depth + 1)) }
            return .array(elements)
        case 5:
            let count = try checkCount(argument, perEntry: 2, kind: "map", itemStart: start)
            var entries: [CBOR.MapEntry] = []
            entries.reserveCapacity(count)
            var seen = Set<CBOR>()
            for _ in 0..<count {
                let keyStart = offset
                let key = try readItem(depth: depth + 1)
                switch key {
                case .unsigned, .negative, .text: break
                default:
                    throw CBORError(
                        .invalidMapKey, at: keyStart, "map key is a \(key.kindName), not an integer or text")
                }
                guard seen.insert(key).inserted else {
                    throw CBORError(.duplicateMapKey, at: keyStart, "map key repeated")
                }
                entries.append(CBOR.MapEntry(key, try readItem(depth: depth + 1)))
            }
            return .map(entries)
        default:  // 6
            return .tagged(argument, try readItem(depth: depth + 1))
        }
    }

    mutating func readSimpleOrFloat(info: UInt8, start: Int) throws(CBORError) -> CBOR {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 25: return .float(Reader.halfToDouble(UInt16(try readBigEndian(2, itemStart: start))))
        case 26: return .float(Double(Float(bitPattern: UInt32(try readBigEndian(4, itemStart: start)))))
        case 27: return .float(Double(bitPattern: try readBigEndian(8, itemStart: start)))
        case 28, 29, 30:
            throw CBORError(.reservedAdditionalInfo, at: start, "reserved additional information \(info)")
        case 31:
            throw CBORError(.indefiniteLength, at: start, "break outside an indefinite-length container")
        default:
            throw CBORError(.unsupportedSimpleValue, at: start, "simple value (additional information \(info))")
        }
    }

    /// IEEE 754 binary16 to Double (RFC 8949 Appendix D).
    static func halfToDouble(_ half: UInt16) -> Double {
        let exponent = Int(half >> 10 & 0x1F)
        let mantissa = Double(half & 0x3FF)
        let magnitude: Double
        switch exponent {
        case 0: magnitude = mantissa * 0x1p-24
        case 31: magnitude = mantissa == 0 ? .infinity : .nan
        default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return half & 0x8000 != 0 ? -magnitude : magnitude
    }
}
