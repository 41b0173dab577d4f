import Foundation

/// Small RFC 4180 helpers for the jobs' output files: quoting, atomic whole-file writes, and a reader
/// for the plain (secret-free) CSV inputs such as a list of references.
/// See <https://www.rfc-editor.org/rfc/rfc4180>.
public enum CSVFile {
    /// `value` quoted when it holds a comma, a quote or a line break.
    public static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Appends `value` as a field to `out`: as is, or quoted (quotes doubled) when it holds a comma, a quote
    /// or a line break byte. Byte by byte, for bulk outputs: no Character (grapheme) scan, no String made.
    static func appendField(_ value: String, to out: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            let special = bytes.contains { $0 == 0x2c || $0 == 0x22 || $0 == 0x0a || $0 == 0x0d }
            guard special else { return out.append(contentsOf: bytes) }
            out.append(0x22)
            for byte in bytes {
                if byte == 0x22 { out.append(0x22) }
                out.append(byte)
            }
            out.append(0x22)
        }
    }

    /// The text of a file with `header` and `rows` (CRLF line ends).
    public static func text(header: [String], rows: [[String]]) -> String {
        var text = header.map(field).joined(separator: ",") + "\r\n"
        for row in rows { text += row.map(field).joined(separator: ",") + "\r\n" }
        return text
    }

    /// Writes the file at once (a temporary file renamed over the target), so a reader or a crash never
    /// sees half a file, and a resumed run rewrites it rather than appending twice.
    public static func write(path: String, header: [String], rows: [[String]]) throws {
        try writeText(path: path, text(header: header, rows: rows))
    }

    /// Writes `text` to `path` atomically, creating the parent folder.
    public static func writeText(path: String, _ text: String) throws {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw JobsError(.invalidInput, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Reads a CSV file with a header into rows of column name to text (for small, secret-free inputs).
    public static func read(path: String) throws -> [[String: String]] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JobsError(.invalidInput, "cannot read \(path)")
        }
        var records = parse(String(decoding: data, as: UTF8.self))
        guard !records.isEmpty else { return [] }
        let header = records.removeFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        return records.compactMap { record in
            if record.count == 1 && record[0].isEmpty { return nil }
            var row: [String: String] = [:]
            for (index, name) in header.enumerated() where index < record.count { row[name] = record[index] }
            return row
        }
    }

    /// Splits CSV text into records of fields (quotes, doubled quotes, CR/LF/CRLF, a leading BOM).
    static func parse(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var inQuotes = false
        var characters = Substring(text)
        if characters.first == "\u{FEFF}" { characters = characters.dropFirst() }
        var iterator = characters.makeIterator()
        var pending: Character? = nil
        while let character = pending ?? iterator.next() {
            pending = nil
            if inQuotes {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { field.append("\"") } else { inQuotes = false; pending = next }
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"": inQuotes = true
            case ",":
                record.append(field)
                field = ""
            case "\r\n", "\n", "\r":
                record.append(field)
                records.append(record)
                record = []
                field = ""
            default: field.append(character)
            }
        }
        if !field.isEmpty || !record.isEmpty {
            record.append(field)
            records.append(record)
        }
        return records
    }
}
