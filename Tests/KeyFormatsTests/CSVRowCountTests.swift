import Foundation
import KeyFormats
import Testing

/// `CSVKeyReader.countDataRows` counts what the reader reads: by line breaks when it can, through the
/// reader when a quote or a lone CR may change where rows end.
@Suite struct CSVRowCountTests {
    static func rowsRead(_ path: String) throws -> Int {
        let reader = try CSVKeyReader(path: path)
        var rows = 0
        while try reader.skipRow() != nil { rows += 1 }
        return rows
    }

    @Test(arguments: [
        ("plain", "private_key,reference\naa,one\nbb,two\ncc,three\n"),
        ("no final line break", "private_key,reference\naa,one\nbb,two"),
        ("CRLF", "private_key,reference\r\naa,one\r\nbb,two\r\n"),
        ("blank and space-only lines", "private_key\n\naa\n   \n\t\nbb\n\n"),
        ("byte order mark", "\u{FEFF}private_key\naa\nbb\n"),
        ("ragged and comma-only rows", "private_key,reference\naa\n,,\nbb,x,y\n"),
        ("a quoted line break", "private_key,reference\naa,\"two\nlines\"\nbb,x\n"),
        ("a lone CR", "private_key\raa\rbb\r"),
        ("header only", "private_key,reference\n"),
        ("empty", ""),
    ])
    func countsWhatTheReaderReads(_ name: String, _ text: String) throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let path = try dir.write("keys.csv", text)
        #expect(CSVKeyReader.countDataRows(path: path) == (try? Self.rowsRead(path)) ?? 0, "\(name)")
    }

    @Test func theExampleFileCountsItsNineRows() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/keys-hex.csv").path
        #expect(CSVKeyReader.countDataRows(path: path) == 9)
        #expect(CSVKeyReader.countDataRows(path: path + ".missing") == nil)
    }
}
