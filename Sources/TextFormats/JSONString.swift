/// JSON string literals ([RFC 8259 section 7](https://www.rfc-editor.org/rfc/rfc8259#section-7)), written
/// one way for every JSON the project emits: so two writers never disagree on the same text.
///
/// The quote and the backslash are escaped with a backslash; LF, CR and tab as `\n`, `\r`, `\t`; every
/// other control character below U+0020 as `\u00xx` (lowercase hex); everything else, `/` and non-ASCII
/// included, is kept as UTF-8.
public enum JSONString {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var out = ""
        append(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string literal, quotes included.
    public static func append(_ text: String, to out: inout String) {
        out += "\""
        // The common string (ids, addresses, base64) needs no escape: appended whole.
        if !text.utf8.contains(where: needsEscape) {
            out += text
        } else {
            var bytes: [UInt8] = []
            appendEscaped(text.utf8, to: &bytes)
            out += String(decoding: bytes, as: UTF8.self)
        }
        out += "\""
    }

    /// Appends `text` as a JSON string literal, quotes included, as UTF-8 bytes.
    @inlinable
    public static func append(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        // Most strings (ids, addresses, base64) need no escape: copied in one piece.
        let copied = text.withUTF8 { utf8 in
            guard !utf8.contains(where: needsEscape) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if !copied { appendEscaped(text.utf8, to: &bytes) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The bytes `text` takes between its quotes once escaped (as ``append(_:to:)-([UInt8])`` writes it).
    public static func escapedByteCount(_ text: String) -> Int {
        var size = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0a, 0x0d, 0x09: size += 2
            case 0..<0x20: size += 6
            default: size += 1
            }
        }
        return size
    }

    /// Whether `byte` cannot stand in a JSON string as it is.
    @inlinable
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    @usableFromInline
    static func appendEscaped(_ utf8: String.UTF8View, to bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0x0a: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0d: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0f)])
            default: bytes.append(byte)
            }
        }
    }
}
