/// Writes `CBOR` items in definite lengths, with every integer, length and tag in its shortest
/// form ([RFC 8949 §4.2.1](https://www.rfc-editor.org/rfc/rfc8949#section-4.2.1)); map entries keep
/// their given order (COSE headers are written in the order built). Floats use the narrowest of
/// single or double precision that holds the value exactly.
public struct CBOREncoder: Sendable {
    /// An encoder.
    public init() {}

    /// The bytes of `item`.
    public func encode(_ item: CBOR) -> [UInt8] {
        var out: [UInt8] = []
        write(item, to: &out)
        return out
    }

    private func writeHead(major: UInt8, _ argument: UInt64, to out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            out.append(type | UInt8(argument))
        case 24...0xFF:
            out.append(type | 24)
            out.append(UInt8(argument))
        case 0x100...0xFFFF:
            out.append(type | 25)
            appendBigEndian(argument, byteCount: 2, to: &out)
        case 0x1_0000...0xFFFF_FFFF:
            out.append(type | 26)
            appendBigEndian(argument, byteCount: 4, to: &out)
        default:
            out.append(type | 27)
            appendBigEndian(argument, byteCount: 8, to: &out)
        }
    }

    private func appendBigEndian(_ value: UInt64, byteCount: Int, to out: inout [UInt8]) {
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    private func write(_ item: CBOR, to out: inout [UInt8]) {
        switch item {
        case .unsigned(let n): writeHead(major: 0, n, to: &out)
        case .negative(let n): writeHead(major: 1, n, to: &out)
        case .bytes(let bytes):
            writeHead(major: 2, UInt64(bytes.count), to: &out)
            out.append(contentsOf: bytes)
        case .text(let text):
            let utf8 = Array(text.utf8)
            writeHead(major: 3, UInt64(utf8.count), to: &out)
            out.append(contentsOf: utf8)
        case .array(let elements):
            writeHead(major: 4, UInt64(elements.count), to: &out)
            for element in elements { write(element, to: &out) }
        case .map(let entries):
            writeHead(major: 5, UInt64(entries.count), to: &out)
            for entry in entries {
                write(entry.key, to: &out)
                write(entry.value, to: &out)
            }
        case .tagged(let tag, let inner):
            writeHead(major: 6, tag, to: &out)
            write(inner, to: &out)
        case .bool(let value): out.append(value ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        case .undefined: out.append(0xF7)
        case .float(let value):
            let single = Float(value)
            if Double(single) == value || value.isNaN {
                out.append(0xFA)
                appendBigEndian(UInt64(single.bitPattern), byteCount: 4, to: &out)
            } else {
                out.append(0xFB)
                appendBigEndian(value.bitPattern, byteCount: 8, to: &out)
            }
        }
    }
}
