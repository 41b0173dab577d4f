import Foundation
import TextFormats

/// Small RFC 4180 helpers for the jobs' output files (fields quoted by `CSVField`): atomic whole-file
/// writes, and a reader for the plain (secret-free) CSV inputs such as a list of references.
/// See <https://www.rfc-editor.org/rfc/rfc4180>.
public enum CSVFile {

    /// The text of a file with `header` and `rows` (CRLF line ends).
    public static func text(header: [String], rows: [[String]]) -> String {
        var text = CSVField.record(header) + "\r\n"
        for row in rows { text += CSVField.record(row) + "\r\n" }
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
        var records = CSVRecords.parse([UInt8](data))
        guard !records.isEmpty else { return [] }
        let header = records.removeFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        return records.compactMap { record in
            if record.count == 1 && record[0].isEmpty { return nil }
            var row: [String: String] = [:]
            for (index, name) in header.enumerated() where index < record.count { row[name] = record[index] }
            return row
        }
    }
}
