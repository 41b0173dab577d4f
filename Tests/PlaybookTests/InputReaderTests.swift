import Foundation
import Testing

@testable import Playbook

@Suite struct InputReaderTests {
    @Test func readsEachKindOfDeclaredInput() throws {
        let inputs = try EveryKindOfInput(
            csv: "id,address\n1,0xa\n2,0xb\n", jsonl: "{\"n\":1}\n\n{\"n\":2}\n",
            receipts: ["b.json", "a.json", "skip.txt"])
        defer { inputs.remove() }
        func items(_ name: String) throws -> [InputItem] {
            let reader = try inputs.reader(name)
            var out: [InputItem] = []
            while let item = try reader.next() { out.append(item) }
            return out
        }
        let keys = try items("keys")
        #expect(keys.map(\.key) == ["row:1", "row:2"])
        #expect(keys.map(\.line) == [2, 3])
        #expect(keys[1].value == .object(["id": .string("2"), "address": .string("0xb")]))
        let events = try items("events")
        #expect(events.map(\.key) == ["line:1", "line:3"])
        #expect(events.map(\.index) == [1, 2])
        #expect(events.map(\.value) == [.object(["n": .int(1)]), .object(["n": .int(2)])])
        let receipts = try items("receipts")
        #expect(receipts.map(\.key) == ["a.json", "b.json"])

        #expect(throws: InputError.self) {
            try InputReader(
                inputs.playbook.inputs["keys"]!, context: TemplateContext(vars: ["dir": .string("/nonexistent")]))
        }
    }

    @Test func readsRelativePathsInTheGivenFolderNotTheProcesss() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("in/receipts"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("address\n0xa\n".utf8).write(to: folder.appendingPathComponent("in/keys.csv"))
        try Data().write(to: folder.appendingPathComponent("in/receipts/a.json"))
        let playbook = try Playbook.parse(
            """
            name: relative
            inputs:
              keys: {csv: in/keys.csv, columns: [address]}
              receipts: {dir: in/receipts}
              missing: {csv: in/none.csv}
            steps:
              - id: a
                action: x
                for_each: keys
            """, file: "relative.yaml")
        // The process's working directory is not `folder`: only the reader's folder can find these.
        #expect(FileManager.default.currentDirectoryPath != folder.path)
        #expect(!FileManager.default.fileExists(atPath: "in/keys.csv"))
        let keys = try InputReader(try #require(playbook.inputs["keys"]), context: TemplateContext(), folder: folder)
        #expect(keys.path == "in/keys.csv")
        #expect(try keys.next()?.value == .object(["address": .string("0xa")]))
        let receipts = try InputReader(
            try #require(playbook.inputs["receipts"]), context: TemplateContext(), folder: folder)
        // Entries keep the path as typed: item keys and `item.path` do not depend on where the run is read.
        #expect(
            try receipts.next()?.value == .object(["name": .string("a.json"), "path": .string("in/receipts/a.json")]))
        #expect(throws: InputError(file: "in/none.csv", message: "no such file", problem: .missing)) {
            try InputReader(try #require(playbook.inputs["missing"]), context: TemplateContext(), folder: folder)
        }
        #expect(throws: InputError.self) {
            try InputReader(try #require(playbook.inputs["keys"]), context: TemplateContext())
        }
    }

    @Test func forEachTemplateMustYieldAList() throws {
        let step = Step(id: "s", action: "x", forEach: .template(try Template(parsing: "${{ vars.v }}")))
        #expect(try step.forEachList(in: TemplateContext(vars: ["v": .list([.int(1)])])) == [.int(1)])
        #expect(throws: TemplateEvaluationError("for_each of step 's' must yield a list, got text")) {
            try step.forEachList(in: TemplateContext(vars: ["v": .string("x")]))
        }
    }
}
