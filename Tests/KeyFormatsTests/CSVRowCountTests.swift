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

    /// After skipping k rows, the next row read is the row (number, line, reference) that reading k + 1 rows
    /// gives: skipped rows are counted as the state machine reads them, across the buffer's edges too.
    @Test func skippingLandsOnTheRowThatReadingReaches() throws {
        var text = "private_key,reference\n"
        for index in 1...6_000 {
            switch index % 7 {
            case 0: text += "\n"  // a blank line
            case 1: text += "aa,\"quoted \(index)\"\n"
            case 2: text += "aa,\"two\nlines \(index)\"\n"
            case 3: text += "aa,crlf \(index)\r\n"
            default: text += "aa,plain \(index)\n"
            }
        }
        let dir = try TestDirectory()
        defer { dir.remove() }
        let path = try dir.write("keys.csv", text)
        let reader = try CSVKeyReader(path: path)
        var rows: [(row: Int, line: Int, reference: String?)] = []
        while let row = try reader.nextRow() { rows.append((row.row, row.line, row.reference)) }
        #expect(rows.count > 5_000)
        for skipped in [0, 1, 2, 3, 5, 8, 13, 100, 2_047, 2_048, 4_999, rows.count - 1] {
            let skipping = try CSVKeyReader(path: path)
            for number in 1...max(skipped, 1) where skipped > 0 {
                #expect(try skipping.skipRow() == number)
            }
            let next = try #require(try skipping.nextRow(), "after \(skipped)")
            let expected = rows[skipped]
            #expect(
                next.row == expected.row && next.line == expected.line && next.reference == expected.reference,
                "after \(skipped): \(next.row) line \(next.line), expected \(expected)")
        }
    }
}
