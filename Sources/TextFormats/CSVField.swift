/// Fields and records of [RFC 4180](https://www.rfc-editor.org/rfc/rfc4180) CSV, written one way for
/// every CSV the project emits.
///
/// A field is written as it is, or, when it holds a comma, a quote, a CR or an LF byte, between quotes
/// with its quotes doubled. The test is on bytes, so a field holding CRLF (one `Character`) is quoted too.
public enum CSVField {
    /// `value` as one field: as is, or quoted.
    public static func quoted(_ value: String) -> String {
        guard value.utf8.contains(where: needsQuotes) else { return value }
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as one field, as is or quoted, as UTF-8 bytes: no `Character` scan, no `String` made.
    public static func append(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { utf8 in
            guard utf8.contains(where: needsQuotes) else { return bytes.append(contentsOf: utf8) }
            bytes.append(0x22)
            for byte in utf8 {
                if byte == 0x22 { bytes.append(0x22) }
                bytes.append(byte)
            }
            bytes.append(0x22)
        }
    }

    /// `fields` as one record without its line end: fields quoted as needed, joined by commas.
    public static func record(_ fields: [String]) -> String {
        fields.map(quoted).joined(separator: ",")
    }

    /// Appends `fields` as one record ending in CRLF (RFC 4180's line end).
    public static func appendRecord(_ fields: [String], to bytes: inout [UInt8]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            append(field, to: &bytes)
        }
        bytes.append(0x0D)
        bytes.append(0x0A)
    }

    /// Whether a field holding `byte` must be quoted: comma, quote, LF, CR.
    static func needsQuotes(_ byte: UInt8) -> Bool {
        byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D
    }
}
