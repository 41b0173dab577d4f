import Foundation
import Testing

@testable import Playbook

@Suite struct JSONLReaderTests {
    @Test(arguments: [1, 5, 65_536])
    func readsValuesWithLineNumbers(chunkSize: Int) throws {
        let text = "{\"id\":1,\"name\":\"a\"}\r\n\n  \n{\"id\":2,\"ok\":true,\"tags\":[\"x\"],\"n\":null}\n[1,2.5]"
        let records = try JSONLReader(bytes: Array(text.utf8), chunkSize: chunkSize).readAll()
        #expect(records.map(\.line) == [1, 4, 5])
        #expect(records[0].value == .object(["id": .int(1), "name": .string("a")]))
        #expect(
            records[1].value
                == .object(["id": .int(2), "ok": .bool(true), "tags": .list([.string("x")]), "n": .null]))
        #expect(records[2].value == .list([.int(1), .double(2.5)]))
    }

    @Test func invalidJSONNamesTheLine() throws {
        let reader = JSONLReader(bytes: Array("{\"a\":1}\n{oops}\n".utf8), name: "e.jsonl")
        #expect(try reader.next()?.line == 1)
        let error = #expect(throws: InputError.self) { try reader.next() }
        #expect(error?.description == "e.jsonl:2: invalid JSON")
    }

    @Test func bomIsSkipped() throws {
        let split = try JSONLReader(bytes: [0xEF, 0xBB, 0xBF] + Array("1\n".utf8), chunkSize: 1).readAll()
        #expect(split.map(\.value) == [.int(1)])
        let records = try JSONLReader(bytes: [0xEF, 0xBB, 0xBF] + Array("\"x\"\n".utf8)).readAll()
        #expect(records.map(\.value) == [.string("x")])
    }
}
