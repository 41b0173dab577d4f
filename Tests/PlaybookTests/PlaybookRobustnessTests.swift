import Foundation
import TestSupport
import Testing

@testable import Playbook

/// Damaged versions of a good playbook must give diagnostics (with valid positions), never a crash.
@Suite struct PlaybookRobustnessTests {
    static let text = try! String(contentsOf: Fixtures.url("playbooks/good/migrate.yaml"), encoding: .utf8)

    static func check(_ text: String) {
        let result = Playbook.validate(text, file: "m.yaml")
        let lines = Self.text.split(separator: "\n", omittingEmptySubsequences: false).count
        for d in result.diagnostics {
            #expect(d.line >= 1 && d.line <= lines + 1 && d.column >= 1, "\(d)")
        }
        #expect(result.isValid == result.diagnostics.filter { $0.severity == .error }.isEmpty)
    }

    @Test func everyTruncationIsHandled() {
        let chars = Array(Self.text)
        var ran = 0
        for end in stride(from: 0, to: chars.count, by: 5) {
            Self.check(String(chars[..<end]))
            ran += 1
        }
        #expect(ran > 100)
    }

    @Test func everyLineDeletionIsHandled() {
        let lines = Self.text.split(separator: "\n", omittingEmptySubsequences: false)
        for index in lines.indices {
            var copy = lines
            copy.remove(at: index)
            Self.check(copy.joined(separator: "\n"))
        }
    }

    @Test func pseudoRandomByteFlipsAreHandled() {
        var bytes = Array(Self.text.utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let alphabet = Array("{}[]:,-'\"&*!|>#%@`$ \n\tx1".utf8)
        for _ in 0..<300 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let position = Int(state >> 33) % bytes.count
            let replacement = alphabet[Int(state >> 20) % alphabet.count]
            let original = bytes[position]
            bytes[position] = replacement
            Self.check(String(decoding: bytes, as: UTF8.self))
            bytes[position] = original
        }
    }
}
