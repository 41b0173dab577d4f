import Foundation
import Testing

@testable import Playbook

@Suite struct DirectoryListerTests {
    @Test func listsRegularFilesSortedAndFiltered() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["b.json", "a.json", "C.json", "notes.txt", ".hidden.json", "10.json", "2.json"] {
            try Data("{}".utf8).write(to: dir.appendingPathComponent(name))
        }
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("sub.json"), withIntermediateDirectories: true)
        let all = try DirectoryLister.list(directory: dir.path, glob: "*.json")
        #expect(all.map(\.name) == ["10.json", "2.json", "C.json", "a.json", "b.json"])
        #expect(all[0].path == dir.path + "/10.json")
        #expect(all[0].item == .object(["name": .string("10.json"), "path": .string(dir.path + "/10.json")]))
        #expect(try DirectoryLister.list(directory: dir.path).count == 6)
        #expect(try DirectoryLister.list(directory: dir.path, glob: ".*").map(\.name) == [".hidden.json"])
        #expect(throws: InputError.self) { try DirectoryLister.list(directory: dir.path + "/missing") }
    }

    @Test func globs() {
        let cases: [(String, String, Bool)] = [
            ("*.json", "a.json", true), ("*.json", "a.jsonl", false), ("*", "", true), ("a?c", "abc", true),
            ("a?c", "ac", false), ("[ab]*.csv", "b1.csv", true), ("[!ab]*.csv", "b1.csv", false),
            ("[a-c]x", "bx", true), ("[a-c]x", "dx", false), ("*a*b*", "xxaxxbxx", true), ("*a*b", "xxbxa", false),
            ("\\*.txt", "*.txt", true), ("\\*.txt", "a.txt", false), ("key-*-v[0-9].csv", "key-2024-v3.csv", true),
        ]
        for (pattern, name, expected) in cases {
            #expect(Glob(pattern).matches(name) == expected, "\(pattern) ~ \(name)")
        }
    }
}
