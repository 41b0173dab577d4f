import Foundation

@testable import Playbook

/// A fresh folder holding one input of each kind, `keys.csv`, `events.jsonl` and a `receipts` directory of
/// empty files, and a playbook that declares them as `keys` (column `address`), `events` and `receipts`
/// (`*.json`) under `vars.dir`: the fixture of the input reader's tests.
struct EveryKindOfInput {
    let folder: URL
    let playbook: Playbook
    /// The context that sets `vars.dir` to ``folder``.
    let context: TemplateContext

    init(csv: String, jsonl: String, receipts: [String]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("inputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("receipts"), withIntermediateDirectories: true)
        try Data(csv.utf8).write(to: folder.appendingPathComponent("keys.csv"))
        try Data(jsonl.utf8).write(to: folder.appendingPathComponent("events.jsonl"))
        for name in receipts { try Data().write(to: folder.appendingPathComponent("receipts/\(name)")) }
        playbook = try Playbook.parse(
            """
            name: inputs
            vars:
              dir: {type: path}
            inputs:
              keys: {csv: "${{ vars.dir }}/keys.csv", columns: [address]}
              events: {jsonl: "${{ vars.dir }}/events.jsonl"}
              receipts: {dir: "${{ vars.dir }}/receipts", glob: "*.json"}
            steps:
              - {id: a, action: x, for_each: keys}
            """, file: "inputs.yaml")
        context = TemplateContext(vars: ["dir": .string(folder.path)])
    }

    /// A reader of the input `name`.
    func reader(_ name: String) throws -> InputReader {
        try InputReader(playbook.inputs[name]!, context: context)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}
