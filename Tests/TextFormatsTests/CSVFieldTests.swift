import Foundation
import Testing

@testable import TextFormats

@Suite struct CSVFieldTests {
    /// Each field's expected text, and the record of all of them with CRLF: the one quoting rule of every
    /// CSV the project writes (the wallet list, the failures, the run outputs, the job reports).
    static let cases: [(String, String)] = [
        ("plain", "plain"), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("l1\r\nl2", "\"l1\r\nl2\""),
        ("l1\nl2", "\"l1\nl2\""), ("cr\r", "\"cr\r\""), ("é😀", "é😀"), ("", ""),
    ]

    @Test func fieldsAreQuotedByteByByteAsRFC4180Asks() {
        for (field, expected) in Self.cases {
            #expect(CSVField.quoted(field) == expected, "\(field)")
            var bytes: [UInt8] = []
            CSVField.append(field, to: &bytes)
            #expect(bytes == Array(expected.utf8), "\(field)")
        }
    }

    @Test func recordsJoinQuotedFieldsWithCommas() {
        let fields = Self.cases.map(\.0)
        let expected = Self.cases.map(\.1).joined(separator: ",")
        #expect(CSVField.record(fields) == expected)
        var bytes: [UInt8] = []
        CSVField.appendRecord(fields, to: &bytes)
        #expect(bytes == Array((expected + "\r\n").utf8))
        var empty: [UInt8] = []
        CSVField.appendRecord(["a", "b,c", ""], to: &empty)
        #expect(empty == Array("a,\"b,c\",\r\n".utf8))
    }
}
