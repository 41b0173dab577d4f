import Foundation
import Testing

@testable import Playbook

/// Bounded depth and size (issue 28): a hostile playbook is refused quickly, at its place, without a crash.
@Suite struct YAMLLimitsTests {
    static let head = "version: 1\nname: deep\nsteps:\n  - id: a\n    action: noop\n    with:\n      x: "

    /// `levels` nested flow lists as the value of `with.x`.
    static func nested(_ levels: Int) -> String {
        head + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "\n"
    }

    @Test func aHundredThousandLevelsAreRefusedQuicklyAtTheirPlace() {
        let clock = ContinuousClock()
        var result: Playbook.ValidationResult?
        let took = clock.measure { result = Playbook.validate(Self.nested(100_000), file: "deep.yaml") }
        #expect(took < .seconds(1), "took \(took)")
        let diagnostics = result?.diagnostics ?? []
        #expect(result?.isValid == false)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        // Four levels hold `x` (the document, steps, the step, with): its 61st '[' opens the 65th level.
        let first = diagnostics.first
        #expect(first?.line == 7)
        #expect(first?.column == "      x: ".count + YAMLLoader.defaultMaxDepth - 4 + 1)
        #expect(first?.message == "nested more than 64 levels deep (lists and mappings)")
        // The rendered line is a window around the place, not 200,000 characters.
        #expect((result?.rendered.count ?? 0) < 600)
    }

    @Test func blockNestingIsCountedToo() {
        var text = "version: 1\nname: deep\nsteps:\n  - id: a\n    action: noop\n    with:\n"
        var indent = "      "
        for level in 0..<100 {
            text += indent + "k\(level):\n"
            indent += "  "
        }
        text += indent + "v: 1\n"
        let result = Playbook.validate(text, file: "block.yaml")
        #expect(result.diagnostics.map(\.message) == ["nested more than 64 levels deep (lists and mappings)"])
    }

    @Test func nestingWithinTheLimitStillLoads() {
        let loaded = YAMLLoader().load(
            "x: " + String(repeating: "[", count: 60) + String(repeating: "]", count: 60), file: "ok")
        #expect(loaded.diagnostics.isEmpty)
        #expect(loaded.root != nil)
    }

    @Test func aLargeScalarIsRefusedWithItsPlace() {
        let text =
            "version: 1\nname: big\ndescription: " + String(repeating: "a", count: YAMLLoader.defaultMaxScalarBytes + 1)
        let result = Playbook.validate(text, file: "big.yaml")
        #expect(
            result.diagnostics.map(\.message) == [
                "a scalar of 65537 bytes, more than the 65536 a playbook value may have"
            ])
        #expect(result.diagnostics.first?.line == 3)
        #expect(result.diagnostics.first?.column == 14)
    }

    @Test func aFiftyMegabyteFileIsRefusedWithoutBeingRead() throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("yaml-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("huge.yaml")
        try Data("description: ".utf8).write(to: file)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        let chunk = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        for _ in 0..<50 { try handle.write(contentsOf: chunk) }
        try handle.close()
        let clock = ContinuousClock()
        var thrown: PlaybookError?
        let took = clock.measure {
            do {
                _ = try Playbook.load(contentsOf: file)
            } catch let error as PlaybookError {
                thrown = error
            } catch {}
        }
        #expect(took < .seconds(1), "took \(took)")
        #expect(
            thrown?.diagnostics.map(\.message) == [
                "the playbook file is larger than the 1048576 bytes a playbook may have"
            ])
    }

    @Test func invalidUTF8IsReportedAtTheByte() throws {
        var bytes = Array("version: 1\nname: x\n".utf8)
        bytes += Array("description: caf".utf8) + [0xC3, 0x28] + Array("\n".utf8)
        do {
            _ = try Playbook.decodeSource(Data(bytes), file: "bad.yaml")
            Issue.record("decoded invalid UTF-8")
        } catch {
            let diagnostic = error.diagnostics.first
            #expect(diagnostic?.line == 3)
            #expect(diagnostic?.column == 17)
            #expect(diagnostic?.message == "the playbook file is not UTF-8 text: byte 35 (0xC3) is not valid UTF-8")
        }
    }
}
