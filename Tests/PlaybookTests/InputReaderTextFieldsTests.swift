import Foundation
import Testing

@testable import Playbook

/// `nextTextFields()` (what the engine streams) gives each item's key and fields exactly as `next()`
/// followed by `textFields` would, for every kind of input.
@Suite struct InputReaderTextFieldsTests {
    @Test func textFieldsMatchTheItemsOfEveryKindOfInput() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fields-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("receipts"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("id,address\n1,0xa\n\n2,\"0x\"\"b\"\n".utf8).write(to: dir.appendingPathComponent("keys.csv"))
        try Data("{\"n\":1,\"s\":\"x\",\"l\":[1]}\n\n\"text\"\n7\n".utf8).write(
            to: dir.appendingPathComponent("events.jsonl"))
        for name in ["b.json", "a.json"] { try Data().write(to: dir.appendingPathComponent("receipts/\(name)")) }
        let playbook = try Playbook.parse(
            """
            name: fields
            vars:
              dir: {type: path}
            inputs:
              keys: {csv: "${{ vars.dir }}/keys.csv", columns: [address]}
              events: {jsonl: "${{ vars.dir }}/events.jsonl"}
              receipts: {dir: "${{ vars.dir }}/receipts", glob: "*.json"}
            steps:
              - {id: a, action: x, for_each: keys}
            """, file: "fields.yaml")
        let context = TemplateContext(vars: ["dir": .string(dir.path)])
        var compared = 0
        for name in ["keys", "events", "receipts"] {
            let declaration = try #require(playbook.inputs[name])
            let items = try InputReader(declaration, context: context)
            let fields = try InputReader(declaration, context: context)
            while let item = try items.next() {
                let flat = try #require(try fields.nextTextFields())
                #expect(flat.key == item.key)
                #expect(flat.fields == item.value.textFields)
                compared += 1
            }
            #expect(try fields.nextTextFields() == nil)
        }
        print("text fields compared: \(compared) items")
        #expect(compared == 2 + 3 + 2)
        let csv = try InputReader(try #require(playbook.inputs["keys"]), context: context)
        #expect(try csv.nextTextFields()?.fields == ["id": "1", "address": "0xa"])
        #expect(try csv.nextTextFields()?.fields == ["id": "2", "address": "0x\"b"])
    }
}
