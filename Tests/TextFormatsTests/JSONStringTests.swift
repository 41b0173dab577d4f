import Foundation
import Testing

@testable import TextFormats

@Suite struct JSONStringTests {
    /// Every byte below 0x80 and some beyond: the literal parses back (Foundation's parser) to the same
    /// string, the String and byte writers agree, and the escaped size is what the byte writer wrote.
    @Test func literalsParseBackToTheirStringWhateverTheyHold() throws {
        var samples = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["", "plain-id_0x12", "a/b", "é😀", "tab\there \"quoted\" back\\slash\r\n", "\u{7F}\u{2028}"]
        for sample in samples {
            let text = JSONString.quoted(sample)
            var bytes: [UInt8] = []
            JSONString.append(sample, to: &bytes)
            #expect(bytes == Array(text.utf8), "\(sample.debugDescription)")
            #expect(JSONString.escapedByteCount(sample) == bytes.count - 2, "\(sample.debugDescription)")
            let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            #expect(parsed as? String == sample, "\(sample.debugDescription)")
        }
    }

    /// Named escapes for quote, backslash, LF, CR and tab; `\u00xx` in lowercase for the other controls
    /// (backspace and form feed included); `/` and non-ASCII as they are.
    @Test func escapesAreTheOnesEveryOutputUses() {
        #expect(JSONString.quoted("\"\\\n\r\t") == #""\"\\\n\r\t""#)
        #expect(JSONString.quoted("\u{08}\u{0C}\u{00}\u{1F}") == #""\u0008\u000c\u0000\u001f""#)
        #expect(JSONString.quoted("a/é") == "\"a/é\"")
        var out = "x="
        JSONString.append("v\"", to: &out)
        #expect(out == #"x="v\"""#)
    }
}
