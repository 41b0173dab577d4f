import Foundation
import TextFormats

extension CSVKeyReader {
    /// The data rows of the key file at `path` as ``nextRow()`` meets them (blank lines are not rows, the
    /// header is not one), nil when the file cannot be read: the progress total of an import, counted
    /// before its first row is sent, so it stays off the way to that row.
    ///
    /// A file without quotes and without a lone CR is counted from its line breaks alone (`memchr` over
    /// the mapped file); any other file is read through the reader, since a quoted cell may hold a line
    /// break.
    public static func countDataRows(path: String) -> Int? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            return nil
        }
        let counted: Int? = data.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, raw.count > 0 else { return 0 }
            if memchr(base, Int32(UInt8(ascii: "\"")), raw.count) != nil { return nil }
            let bytes = raw.bindMemory(to: UInt8.self)
            var lines = 0
            var start = 0
            while start < bytes.count {
                let rest = bytes.count - start
                let end: Int
                if let found = memchr(base + start, 0x0A, rest) {
                    end = base.distance(to: UnsafeRawPointer(found))
                } else {
                    end = bytes.count
                }
                // A CR ends a record too: one inside a line (not right before its LF) needs the reader.
                var last = end
                if last > start && bytes[last - 1] == 0x0D { last -= 1 }
                if last > start, memchr(base + start, 0x0D, last - start) != nil { return nil }
                if (start..<last).contains(where: { !ASCII.isWhitespace(bytes[$0]) }) { lines += 1 }
                start = end + 1
            }
            return max(lines - 1, 0)  // the header
        }
        if let counted { return counted }
        guard let reader = try? CSVKeyReader(path: path) else { return nil }
        var rows = 0
        do {
            while try reader.skipRow() != nil { rows += 1 }
        } catch {
            return nil
        }
        return rows
    }
}
