import Foundation
import Testing

@testable import Runner

/// An item of one field (a one-column CSV row) is stored inline but reads, compares, changes and
/// redacts exactly like the same item made from a dictionary.
@Suite struct WorkItemTests {
    @Test func oneFieldItemsBehaveLikeDictionaryItems() {
        let cases: [(name: String, value: String, secret: Bool)] = [
            ("n", "1", false), ("key", "0xabcdef0123456789abcdef0123456789", true), ("n", "", true),
        ]
        var ran = 0
        for (name, value, secret) in cases {
            let secrets: Set<String> = secret ? [name] : []
            let inline = WorkItem(key: "row:1", field: name, value: value, secretFields: secrets)
            let plain = WorkItem(key: "row:1", fields: [name: value], secretFields: secrets)
            #expect(inline == plain)
            #expect(inline.fields == [name: value])
            #expect(inline.field(name) == value)
            #expect(inline.field("other") == nil)
            let message = "failed for \(value) at \(name)"
            #expect(inline.redacting(message) == plain.redacting(message))
            var changed = inline
            changed.fields["other"] = "x"
            #expect(changed.fields == [name: value, "other": "x"])
            #expect(changed != inline)
            ran += 1
        }
        print("one-field item cases: \(ran)")
        #expect(ran == cases.count)
    }
}
