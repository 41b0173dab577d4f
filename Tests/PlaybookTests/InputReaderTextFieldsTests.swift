import Foundation
import Testing

@testable import Playbook

/// `nextTextFields()` (what the engine streams) gives each item's key and fields exactly as `next()`
/// followed by `textFields` would, for every kind of input.
@Suite struct InputReaderTextFieldsTests {
    @Test func textFieldsMatchTheItemsOfEveryKindOfInput() throws {
        let inputs = try EveryKindOfInput(
            csv: "id,address\n1,0xa\n\n2,\"0x\"\"b\"\n", jsonl: "{\"n\":1,\"s\":\"x\",\"l\":[1]}\n\n\"text\"\n7\n",
            receipts: ["b.json", "a.json"])
        defer { inputs.remove() }
        var compared = 0
        for name in ["keys", "events", "receipts"] {
            let items = try inputs.reader(name)
            let fields = try inputs.reader(name)
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
        let csv = try inputs.reader("keys")
        #expect(try csv.nextTextFields()?.fields == ["id": "1", "address": "0xa"])
        #expect(try csv.nextTextFields()?.fields == ["id": "2", "address": "0x\"b"])
    }
}
