import Foundation
import Testing
import WalletCrypto

@Suite struct JSONValueTests {
    @Test func parsesKeepingMemberOrderAndSerializesCompactly() throws {
        let text = #"{ "z": 1, "a": [true, false, null], "m": {"y": -2.5, "x": "s\/\u00e9\n"}, "big": 12345678901234 }"#
        let value = try JSONValue.parse(text)
        #expect(value.objectValue?.keys == ["z", "a", "m", "big"])
        #expect(value["m"]?.objectValue?.keys == ["y", "x"])
        #expect(value["big"] == .int(12_345_678_901_234))
        #expect(value["m"]?["y"] == .double(-2.5))
        #expect(value["m"]?["x"] == .string("s/\u{e9}\n"))
        #expect(
            value.serialized()
                == #"{"z":1,"a":[true,false,null],"m":{"y":-2.5,"x":"s/\#u{e9}\n"},"big":12345678901234}"#)
        #expect(try JSONValue.parse(value.serialized()) == value)
    }

    @Test func escapesControlCharactersAndSurrogatePairs() throws {
        let value = try JSONValue.parse(#""\ud83d\ude00\u0001\"""#)
        #expect(value == .string("\u{1F600}\u{01}\""))
        #expect(value.serialized() == "\"\u{1F600}\\u0001\\\"\"")
    }

    @Test func refusesBadInputWithOffsets() {
        let bad: [(String, Int)] = [
            ("{\"a\":1,\"a\":2}", 7), ("[1,]", 3), ("01", 1), ("\"abc", 4), ("{\"a\" 1}", 5), ("tru", 0),
            ("[1] x", 4), ("\"\\ud800\"", 7), ("1.", 2), ("\"\u{01}\"", 1),
        ]
        for (text, offset) in bad {
            #expect(throws: JSONValue.ParseError.self, "\(text)") { try JSONValue.parse(text) }
            do {
                _ = try JSONValue.parse(text)
            } catch {
                #expect(error.offset == offset, "\(text): \(error)")
            }
        }
        #expect(throws: JSONValue.ParseError.self) {
            try JSONValue.parse(Array([UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\"")]))
        }
    }

    @Test func boundsNestingDepth() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(deep) }
        #expect(try JSONValue.parse("[[[]]]", maxDepth: 3) == [[[]]])
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse("[[[]]]", maxDepth: 2) }
    }

    @Test func objectEditingAndCodable() throws {
        var object: JSONObject = ["b": 1, "a": 2]
        object["c"] = "x"
        object["b"] = nil
        #expect(object.keys == ["a", "c"])
        let value = JSONValue.object(object)
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
        #expect(
            try JSONDecoder().decode(JSONValue.self, from: Data("[1, 2.5, \"s\", null, true]".utf8))
                == [1, 2.5, "s", nil, true])
    }
}
