import Foundation
import KeyFormats
import TestSupport
import Testing

@testable import Jobs

/// The import's pre-pass: every row settled in input order before any import, duplicates decided by row
/// order, no key in any reason.
@Suite struct ImportKeysActionTests {
    static func configuration(_ input: String, rejects: String = "/dev/null") -> ImportKeysAction.Configuration {
        ImportKeysAction.Configuration(
            input: input, format: .hexCSV, type: nil, passwords: nil, output: "/dev/null", rejects: rejects)
    }

    @Test func examplePrePassSettlesEveryRowInOrder() async throws {
        let input = Fixtures.repositoryRoot.appendingPathComponent("examples/keys-hex.csv").path
        let entries = try await ImportKeysAction(Self.configuration(input)).read()
        #expect(entries.map(\.source) == (1...9).map(String.init))
        #expect(entries.map { $0.key != nil } == [true, true, true, false, false, false, false, false, false])
        #expect(entries.map(\.reference).prefix(3) == ["legacy-alice", "legacy-bob", "import-3"])
        #expect(entries.last?.reject?.errorClass == "duplicate")
        #expect(entries.last?.reject?.reason == "duplicateKey: the same key as 2")
    }

    @Test func theFirstRowOfAKeyWinsWhereverItsCopiesAre() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-dup-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Ten distinct keys, each repeated at a pseudo-random later row.
        var keys: [String] = (1...10).map { String(format: "%064x", $0 * 7919) }
        var generator = Generator()
        var order: [Int] = Array(0..<10) + Array(0..<10).shuffled(using: &generator)
        order.insert(3, at: 2)
        keys = order.map { keys[$0] }
        let path = directory.appendingPathComponent("keys.csv").path
        try Data(("private_key\n" + keys.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let entries = try await ImportKeysAction(Self.configuration(path)).read()
        var first: [String: Int] = [:]
        for (row, key) in keys.enumerated() where first[key] == nil { first[key] = row + 1 }
        for (index, entry) in entries.enumerated() {
            let winner = first[keys[index]]!
            if winner == index + 1 {
                #expect(entry.key != nil, "row \(index + 1) is the first with its key")
            } else {
                #expect(entry.reject?.reason == "duplicateKey: the same key as \(winner)")
            }
            let reason = entry.reject.map { $0.reason } ?? ""
            #expect(!reason.contains(keys[index]), "no key in a reason")
        }
        #expect(entries.filter { $0.key != nil }.count == 10)
    }

    /// A fixed-seed generator so the shuffle is the same on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64 = 42
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }
}
