/// Standard base64 (RFC 4648 section 4, with padding) as the import wire fields carry it.
///
/// Decoding is strict: the text must be exactly what encoding the decoded bytes gives back, so one
/// value has one spelling (no whitespace, no missing padding, no stray bits in the last character).
///
/// Written by hand over UTF-8 bytes rather than through `Data`: a batched import encodes and decodes
/// one ciphertext per key on each side, and Foundation's round trip (a `Data` copy, then a second
/// encoding to check that the text is canonical) cost about a microsecond each time.
public enum CanonicalBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    /// The value of each byte as a base64 digit; 0xFF for a byte that is not one.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// Encodes bytes with padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) {
            return encoded
        }
        return Array(bytes).withUnsafeBytes { encode($0) }
    }

    /// Encodes the bytes of `raw` with padding.
    public static func encode(_ raw: UnsafeRawBufferPointer) -> String {
        let length = (raw.count + 2) / 3 * 4
        guard length > 0 else { return "" }
        return alphabet.withUnsafeBufferPointer { digits in
            String(unsafeUninitializedCapacity: length) { out in
                var input = 0
                var output = 0
                while input + 3 <= raw.count {
                    let group = UInt32(raw[input]) << 16 | UInt32(raw[input + 1]) << 8 | UInt32(raw[input + 2])
                    out[output] = digits[Int(group >> 18)]
                    out[output + 1] = digits[Int(group >> 12 & 63)]
                    out[output + 2] = digits[Int(group >> 6 & 63)]
                    out[output + 3] = digits[Int(group & 63)]
                    input += 3
                    output += 4
                }
                let rest = raw.count - input
                if rest > 0 {
                    let group = UInt32(raw[input]) << 16 | (rest == 2 ? UInt32(raw[input + 1]) << 8 : 0)
                    out[output] = digits[Int(group >> 18)]
                    out[output + 1] = digits[Int(group >> 12 & 63)]
                    out[output + 2] = rest == 2 ? digits[Int(group >> 6 & 63)] : UInt8(ascii: "=")
                    out[output + 3] = UInt8(ascii: "=")
                }
                return length
            }
        }
    }

    /// Decodes canonical base64, or returns nil.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }

    /// Decodes canonical base64 given as UTF-8 bytes, or returns nil: a length that is not a multiple
    /// of 4, a byte outside the alphabet, padding other than one or two final `=`, or bits set that
    /// the padding leaves unused.
    public static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        let count = text.count
        guard count % 4 == 0 else { return nil }
        guard count > 0 else { return [] }
        let padding = text[count - 1] == UInt8(ascii: "=") ? (text[count - 2] == UInt8(ascii: "=") ? 2 : 1) : 0
        let length = count / 4 * 3 - padding
        return values.withUnsafeBufferPointer { values -> [UInt8]? in
            var failed = false
            let bytes = [UInt8](unsafeUninitializedCapacity: length) { out, initialized in
                var input = 0
                var output = 0
                // Whole groups; the last group is read below when it has padding.
                let fullGroups = padding == 0 ? count : count - 4
                var invalid: UInt8 = 0
                while input < fullGroups {
                    let a = values[Int(text[input])]
                    let b = values[Int(text[input + 1])]
                    let c = values[Int(text[input + 2])]
                    let d = values[Int(text[input + 3])]
                    invalid |= a | b | c | d
                    let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[output] = UInt8(truncatingIfNeeded: group >> 16)
                    out[output + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    out[output + 2] = UInt8(truncatingIfNeeded: group)
                    input += 4
                    output += 3
                }
                if padding > 0 {
                    let a = values[Int(text[input])]
                    let b = values[Int(text[input + 1])]
                    let c = padding == 1 ? values[Int(text[input + 2])] : 0
                    invalid |= a | b | c
                    // The bits past the last byte must be zero: otherwise another text decodes alike.
                    let unused = padding == 1 ? c & 0x03 : b & 0x0F
                    if unused != 0 { invalid = 0xFF }
                    let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                    out[output] = UInt8(truncatingIfNeeded: group >> 16)
                    if padding == 1 { out[output + 1] = UInt8(truncatingIfNeeded: group >> 8) }
                }
                // 0xFF marks a byte outside the alphabet (digits are below 64), '=' included.
                failed = invalid & 0xC0 != 0
                initialized = length
            }
            return failed ? nil : bytes
        }
    }
}
