import Foundation
import TestSupport
import Testing

/// The fuzz seeds, and every crash input kept as a regression, go through their targets in every test run
/// (`walletops-fuzz <target> <folder>`, the replayer an ordinary build makes; `make fuzz` runs libFuzzer).
@Suite struct FuzzSeedReplayTests {
    static var corpus: URL { Fixtures.repositoryRoot.appendingPathComponent("fuzz/corpus") }

    @Test func everySeedReplaysThroughItsTarget() throws {
        let binary = try BuiltBinary.url().deletingLastPathComponent().appendingPathComponent("walletops-fuzz")
        let targets = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        #expect(targets.count == 13, "\(targets)")
        // The usage line names every target: each has a seed folder and each folder a target.
        let usage = try BuiltBinary.run([], executable: binary.path)
        #expect(usage.status == 64)
        #expect(usage.standardOutput.contains("<" + targets.joined(separator: "|") + ">"), "\(usage)")
        for target in targets {
            let folder = Self.corpus.appendingPathComponent(target)
            let seeds = try FileManager.default.contentsOfDirectory(atPath: folder.path).count
            #expect(seeds > 0, "\(target) has no seed")
            let replay = try BuiltBinary.run([target, folder.path], executable: binary.path)
            #expect(replay.status == 0, "\(target): \(replay)")
            #expect(replay.standardOutput == "\(target): \(seeds) inputs replayed\n", "\(replay)")
        }
    }
}
