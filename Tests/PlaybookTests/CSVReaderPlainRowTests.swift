import Foundation
import Testing

@testable import Playbook

/// Plain rows (no quote, wholly in one chunk) are split in place; every other row goes through the byte
/// loop. At chunk size 1 no row fits in a chunk, so comparing it with a large chunk compares the two
/// paths: the same records, or the same error, for every case.
@Suite struct CSVReaderPlainRowTests {
    static let cases: [(text: String, header: Bool, columns: [String]?)] = [
        ("n\n1\n2\n3\n", true, nil),
        ("a,b\r\n1,2\r\n\r\n3,4\r\n", true, nil),
        ("a,b\n1,\"q\"\n2,3\n,\n", true, nil),
        ("a;b\n1;2\n", true, nil),
        ("1,2\n3,4\n", false, ["x", "y"]),
        ("1,2\n3,4\n", false, ["x", "x"]),
        ("a,b\n1,2\n3\n4,5\n", true, nil),
        ("a,b\n1,2\n3,4,5\n", true, nil),
        ("a,b\n1,\u{00e9}t\u{00e9}\n2,x\n", true, nil),
        ("a\n\u{FEFF}x\n", true, nil),
        ("a,b\n1,2", true, nil),
    ]

    static func outcome(_ text: String, header: Bool, columns: [String]?, chunkSize: Int) -> String {
        var bytes = Array(text.utf8)
        if text.hasPrefix("a,b\n1,2\n3,4,5") { bytes += [0xff, 0x0a] }
        let delimiter: Character = text.hasPrefix("a;b") ? ";" : ","
        let reader = CSVReader(
            bytes: bytes, name: "t.csv", header: header, columns: columns, delimiter: delimiter,
            chunkSize: chunkSize)
        do {
            return try reader.readAll().map {
                "\($0.row)@\($0.line) \($0.fields) \($0.values.sorted { $0.key < $1.key })"
            }
            .joined(separator: "\n")
        } catch {
            return "error \(error)"
        }
    }

    @Test func plainRowsReadAsTheByteLoopReadsThem() {
        var ran = 0
        for (text, header, columns) in Self.cases {
            let bytewise = Self.outcome(text, header: header, columns: columns, chunkSize: 1)
            for chunkSize in [4, 65_536] {
                let read = Self.outcome(text, header: header, columns: columns, chunkSize: chunkSize)
                #expect(read == bytewise, "\(text.debugDescription) at chunk size \(chunkSize)")
            }
            ran += 1
        }
        print("CSV plain-row cases: \(ran)")
        #expect(ran == Self.cases.count)
    }

    @Test func rowKeysAreTheRowNumbers() {
        let rows = [0, 1, 9, 10, 99, 1_000_000, 12_345_678_901, Int.max]
        for row in rows { #expect(InputReader.rowKey(row) == "row:\(row)") }
        #expect(rows.count == 8)
    }
}
