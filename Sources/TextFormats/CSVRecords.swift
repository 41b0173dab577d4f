/// Reads a small, secret-free [RFC 4180](https://www.rfc-editor.org/rfc/rfc4180) CSV text held in memory
/// (a password map, a list of references, a report's rows) into records of fields.
///
/// A field that starts with a quote is quoted: `""` inside it is one quote, and commas and line breaks
/// are part of it; a quote elsewhere is kept as it is. Records end at CRLF, LF or CR; a leading UTF-8 BOM
/// is skipped; a last record without a line end counts. Lenient by design: nothing is refused. The streaming
/// readers of large or secret inputs (Playbook's `CSVReader`, KeyFormats' `CSVKeyReader`) are strict.
public enum CSVRecords {
    /// The records of `bytes`, each an array of fields.
    public static func parse(_ bytes: [UInt8]) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func endField() {
            record.append(String(decoding: field, as: UTF8.self))
            field.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inQuotes {
                if byte == 0x22 {
                    if index < bytes.count && bytes[index] == 0x22 {
                        field.append(0x22)
                        index += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case 0x22 where field.isEmpty: inQuotes = true
            case 0x2C: endField()
            case 0x0A, 0x0D:
                if byte == 0x0D && index < bytes.count && bytes[index] == 0x0A { index += 1 }
                endField()
                records.append(record)
                record = []
            default: field.append(byte)
            }
        }
        if !field.isEmpty || !record.isEmpty {
            endField()
            records.append(record)
        }
        return records
    }

    /// The records of `text` (see ``parse(_:)-([UInt8])``).
    public static func parse(_ text: String) -> [[String]] { parse(Array(text.utf8)) }
}
