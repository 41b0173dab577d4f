import Foundation
import Testing

@testable import Playbook

@Suite struct CSVReaderTests {
    static func rows(_ text: String, header: Bool = true, columns: [String]? = nil, chunkSize: Int = 65_536) throws
        -> [CSVReader.Record]
    {
        try CSVReader(bytes: Array(text.utf8), name: "t.csv", header: header, columns: columns, chunkSize: chunkSize)
            .readAll()
    }

    @Test(arguments: [1, 2, 3, 7, 65_536])
    func quotedFieldsEscapedQuotesAndNewlines(chunkSize: Int) throws {
        let text = "id,note\r\n1,\"a, b\"\r\n2,\"say \"\"hi\"\"\"\r\n3,\"two\r\nlines\"\r\n4,plain\r\n"
        let rows = try Self.rows(text, chunkSize: chunkSize)
        #expect(rows.map(\.fields) == [["1", "a, b"], ["2", "say \"hi\""], ["3", "two\r\nlines"], ["4", "plain"]])
        #expect(rows.map(\.row) == [1, 2, 3, 4])
        #expect(rows.map(\.line) == [2, 3, 4, 6])
        #expect(rows[1].values == ["id": "2", "note": "say \"hi\""])
    }

    @Test(arguments: [1, 2, 65_536])
    func bomAndBlankLinesAndNoFinalNewline(chunkSize: Int) throws {
        let text = "\u{FEFF}a,b\n\n1,2\n\r\n\n3,4"
        let rows = try Self.rows(text, chunkSize: chunkSize)
        #expect(rows.map(\.values) == [["a": "1", "b": "2"], ["a": "3", "b": "4"]])
        #expect(rows.map(\.line) == [3, 6])
    }

    @Test func emptyFieldsAndQuotedEmptyLineAreRows() throws {
        let rows = try Self.rows("a,b\n,\n\"\",x\n")
        #expect(rows.map(\.fields) == [["", ""], ["", "x"]])
    }

    @Test func raggedRowIsAnErrorWithRowAndLine() throws {
        let error = #expect(throws: InputError.self) { try Self.rows("a,b,c\n1,2,3\n\n4,5\n") }
        #expect(error?.description == "t.csv:4: row 2: expected 3 fields, found 2")
    }

    @Test func unclosedQuoteIsAnError() throws {
        let error = #expect(throws: InputError.self) { try Self.rows("a\n\"open\n") }
        #expect(error?.description == "t.csv:2: unclosed quoted field (the file ends inside quotes)")
    }

    @Test func strayQuotesAreErrors() throws {
        let inside = #expect(throws: InputError.self) { try Self.rows("a\nab\"c\n") }
        #expect(inside?.description == "t.csv:2: unexpected quote in an unquoted field")
        let after = #expect(throws: InputError.self) { try Self.rows("a\n\"ab\"c\n") }
        #expect(after?.description == "t.csv:2: unexpected character after a closing quote (quote the whole field)")
    }

    @Test func headerColumnsAreChecked() throws {
        let missing = #expect(throws: InputError.self) { try Self.rows("id,key\n1,2\n", columns: ["id", "address"]) }
        #expect(missing?.description == "t.csv:1: missing column 'address' (the header has id, key)")
        let duplicate = #expect(throws: InputError.self) { try Self.rows("id,id\n1,2\n") }
        #expect(duplicate?.description == "t.csv:1: duplicate column 'id' in the header")
    }

    @Test func noHeaderUsesDeclaredColumns() throws {
        let rows = try Self.rows("1,x\n2,y\n", header: false, columns: ["n", "s"])
        #expect(rows.map(\.values) == [["n": "1", "s": "x"], ["n": "2", "s": "y"]])
        #expect(rows[0].item == .object(["n": .string("1"), "s": .string("x")]))
    }

    @Test func otherDelimiter() throws {
        let reader = CSVReader(bytes: Array("a;b\n1;\"x;y\"\n".utf8), delimiter: ";")
        #expect(try reader.readAll().map(\.fields) == [["1", "x;y"]])
    }

    @Test func streamsAFileInSmallChunks() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csv-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        var text = "id,value\n"
        for i in 1...5_000 { text += "\(i),\"v \(i)\"\n" }
        try Data(text.utf8).write(to: url)
        let reader = try CSVReader(url: url, chunkSize: 1_000)
        var count = 0
        while let record = try reader.next() {
            count += 1
            #expect(record.fields == ["\(count)", "v \(count)"])
        }
        #expect(count == 5_000)
        #expect(reader.columns == ["id", "value"])
    }

    @Test func invalidUTF8IsAnError() throws {
        let reader = CSVReader(bytes: Array("a\n".utf8) + [0xff, 0x0a], name: "t.csv")
        let error = #expect(throws: InputError.self) { try reader.readAll() }
        #expect(error?.description == "t.csv:2: the row is not valid UTF-8")
    }
}
