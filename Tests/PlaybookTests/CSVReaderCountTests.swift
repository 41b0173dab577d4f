import Foundation
import Testing

@testable import Playbook

/// `countRemaining()` checks rows without building them: it must reach the same count as reading every
/// row, and throw the same error as reading would, at every chunk size.
@Suite struct CSVReaderCountTests {
    static let cases: [(text: String, header: Bool)] = [
        ("id,note\r\n1,\"a, b\"\r\n2,\"say \"\"hi\"\"\"\r\n3,\"two\r\nlines\"\r\n4,plain\r\n", true),
        ("\u{FEFF}a,b\n\n1,2\n\r\n\n3,4", true),
        ("1,2\n3,4\n,\n\"\",x\n", false),
        ("name\n\n\n", true),
        ("a,b\n1,2\n3\n", true),
        ("a,b\n1,\"open\n", true),
        ("a,b\n1,x\"y\n", true),
        ("a,b\n1,\"q\"z\n", true),
        ("a,b\n1,\u{00e9}t\u{00e9}\n", true),
        ("a,a\n1,2\n", true),
    ]

    static func outcome(_ body: () throws(InputError) -> Int) -> String {
        do {
            return "count \(try body())"
        } catch {
            return "error \(error)"
        }
    }

    @Test(arguments: [1, 2, 3, 5, 65_536])
    func countingAgreesWithReadingEveryRow(chunkSize: Int) throws {
        var ran = 0
        for (text, header) in Self.cases {
            func reader() -> CSVReader {
                CSVReader(bytes: Array(text.utf8), name: "t.csv", header: header, chunkSize: chunkSize)
            }
            let read = Self.outcome { () throws(InputError) -> Int in
                let reader = reader()
                var rows = 0
                while try reader.next() != nil { rows += 1 }
                return rows
            }
            let counted = Self.outcome { () throws(InputError) -> Int in try reader().countRemaining() }
            #expect(counted == read, "\(text.debugDescription) at chunk size \(chunkSize)")
            ran += 1
        }
        let invalid = Array("a,b\n1,".utf8) + [0xC3, 0x28] + Array("\n".utf8)
        let bad = CSVReader(bytes: invalid, name: "t.csv", chunkSize: chunkSize)
        #expect(throws: InputError.self) { try bad.countRemaining() }
        ran += 1
        print("CSV count cases: \(ran) at chunk size \(chunkSize)")
        #expect(ran == Self.cases.count + 1)
    }

    @Test func countingAfterSomeRowsCountsTheRest() throws {
        var text = "id,value\n"
        for index in 1...1000 { text += "\(index),\"v\(index)\"\n" }
        let reader = CSVReader(bytes: Array(text.utf8), name: "t.csv", chunkSize: 7)
        for _ in 0..<10 { _ = try reader.next() }
        #expect(try reader.countRemaining() == 990)
        #expect(try reader.next() == nil)
    }
}
