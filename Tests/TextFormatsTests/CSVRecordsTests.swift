import Testing

@testable import TextFormats

@Suite struct CSVRecordsTests {
    /// What the writer quotes, the reader gives back: random fields of commas, quotes, CR, LF, spaces and
    /// non-ASCII, through `CSVField.appendRecord` and back, field for field.
    @Test func recordsTheWriterWroteReadBackFieldForField() {
        var generator = SystemRandomNumberGenerator()
        let pieces = [",", "\"", "\r", "\n", "\r\n", " ", "a", "é", "😀", "\"\""]
        var written: [[String]] = []
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        for _ in 0..<200 {
            let record = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                // A first field is never empty: a lone empty field is a blank line, which carries no record.
                (0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                    .joined()
            }
            written.append(record)
            CSVField.appendRecord(record, to: &bytes)
        }
        #expect(CSVRecords.parse(bytes) == written)
        #expect(CSVRecords.parse(String(decoding: bytes, as: UTF8.self)) == written)
    }

    /// Line ends of every kind, a last record without one, and a quote inside an unquoted field kept.
    @Test func lineEndsAndStrayQuotes() {
        #expect(CSVRecords.parse("a,b\r\nc\nd\re,f") == [["a", "b"], ["c"], ["d"], ["e", "f"]])
        #expect(CSVRecords.parse("x\"y,\"q\"\"\"\n") == [["x\"y", "q\""]])
        #expect(CSVRecords.parse("") == [])
    }
}
