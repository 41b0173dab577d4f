import Foundation
import TestSupport
import Testing

/// A large import SIGKILLed five times at random moments and resumed: exactly one wallet per distinct valid key, no
/// duplicate address, the output holding each imported row once and the rejects each bad row once.
///
/// 20,000 distinct keys plus duplicate and bad rows spread through the file (set `WALLETOPS_KILL_TEST_ROWS`
/// to change the count; 100000 is the issue's size). Each kill lands when the run's own output holds a
/// random share of the rows (round k between 16k+4 % and 16k+15 %): rows are written in source order as the
/// run's watermark advances, so the count is the run's progress. A run that ends before its kill could
/// land fails the test.
@Suite(.serialized) struct JobsKillResumeTests {
    /// The step's chunks: 250 rows, 4 in flight.
    static let (batch, parallel) = (250, 4)

    static var distinctKeys: Int {
        Int(ProcessInfo.processInfo.environment["WALLETOPS_KILL_TEST_ROWS"] ?? "") ?? 20_000
    }

    @Test(.timeLimit(.minutes(20))) func importKilledFiveTimesAtRandomAndResumed() throws {
        let count = Self.distinctKeys
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        var keys: [String] = []
        var state: UInt64 = 0x5eed_1234
        for _ in 1...count {
            // Distinct valid scalars from SplitMix64: the top byte kept below 0xff so the key is below n.
            var bytes: [UInt8] = []
            for _ in 0..<4 {
                state &+= 0x9e37_79b9_7f4a_7c15
                var z = state
                z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
                z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
                z ^= z >> 31
                for shift in stride(from: 56, through: 0, by: -8) {
                    bytes.append(UInt8(truncatingIfNeeded: z >> UInt64(shift)))
                }
            }
            bytes[0] = bytes[0] % 0xfe + 1
            keys.append(Hex.encode(bytes))
        }
        // Every 500th row is followed by a copy of a key 300 rows back and, every 1000th, a bad key.
        var lines: [String] = []
        var duplicates = 0
        var bad = 0
        for (index, key) in keys.enumerated() {
            lines.append(key)
            if index % 500 == 499 {
                lines.append(keys[index - 300].uppercased())
                duplicates += 1
            }
            if index % 1000 == 999 {
                lines.append(String(key.prefix(40)))
                bad += 1
            }
        }
        let rowCount = lines.count
        try Data(("private_key\n" + lines.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: world.path("keys.csv")))
        let arguments = [
            "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/import-keys.yaml").path, "--home",
            world.home.path, "--var", "input=\(world.path("keys.csv"))", "--var", "format=hex-csv", "--var",
            "output=\(world.path("out.csv"))", "--var", "rejects=\(world.path("rejects.csv"))", "--var", "core=",
            "--var", "batch=\(Self.batch)", "--var", "parallel=\(Self.parallel)",
        ]

        // Five kills at random moments (a fifth of the run apart at least, so each round gets somewhere),
        // from a seed printed for replay.
        let seed =
            UInt64(ProcessInfo.processInfo.environment["WALLETOPS_KILL_TEST_SEED"] ?? "")
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("kill moments seed \(seed) (WALLETOPS_KILL_TEST_SEED)")
        var moments = SeededMoments(seed: seed)
        let targets = (0..<5).map { round in rowCount * (round * 16 + 4 + moments.next(below: 12)) / 100 }
        var seenAtLastKill = 0
        for (round, target) in zip(1...5, targets) {
            // Rows are written in source order, so the output's rows are the run's progress.
            seenAtLastKill = try world.killMidRun(
                arguments, round: round, output: world.path("out.csv"), target: target, poll: .milliseconds(20),
                inPlace: true, rows: Self.dataRows)
        }

        // What the killed runs imported: the resumed run finds those of them not yet checkpointed.
        let importedBeforeResume = try CreateWalletsKillResumeTests.wallets(world).count

        let final = try BuiltBinary.run(arguments, directory: world.scratch)
        // Rejected rows make the completed run exit 1 (the contract); nothing else may fail.
        #expect(final.status == 1, "\(final)")
        // Nothing finished is done again: the resumed run found done every row the checkpoint held (the
        // round-1 import redid every batch from the first row).
        let report = try RunReportFile(of: final)
        let resumed = try #require(report.count("resumed"))
        #expect(resumed < rowCount, "the resumed run had work left")
        #expect(report.count("succeeded") == count && report.count("rejected") == duplicates + bad)
        // Only rows without a checkpoint were sealed and sent (the bad ones never are); of those, only the ones
        // in flight at the kill had been imported already: the rows sent again.
        let (sent, found) = (report.work("sent"), report.work("found"))
        // Rows written but not yet checkpointed at the kill are truncated and done again (docs/engine.md
        // "Output sinks"): each was made already, so the resumed run finds it; the output is ahead of
        // the checkpoint by no more than that.
        #expect(
            seenAtLastKill - resumed <= found,
            "resumed \(resumed), \(seenAtLastKill) were in the output at the kill, \(found) found done")
        print("resumed run: \(resumed) rows resumed, sent \(sent), found \(found) (sent again)")
        #expect(sent > 0 && sent <= rowCount - resumed, "sent \(sent), \(rowCount - resumed) rows were left")
        #expect(report.work("imported") == count - importedBeforeResume)
        #expect(found <= Self.batch * Self.parallel, "\(found) rows sent again, more than the 4 x 250 in flight")
        let rows = JobsEndToEndTests.parseCSV(world.read("out.csv"))
        let rejects = JobsEndToEndTests.parseCSV(world.read("rejects.csv"))
        #expect(rows.count == count)
        #expect(Set(rows.map { $0["source"]! }).count == count, "each row once")
        #expect(Set(rows.map { $0["address"]!.lowercased() }).count == count, "no duplicate address")
        #expect(rejects.count == duplicates + bad, "every duplicate and bad row rejected once")
        #expect(Set(rejects.map { $0["source"]! }).count == rejects.count)
        #expect(rejects.filter { $0["error_class"] == "duplicate" }.count == duplicates)
        #expect(rejects.filter { $0["error_class"] == "validation" }.count == bad)
        #expect(rows.count + rejects.count == rowCount, "every row in exactly one file")
        let list = try BuiltBinary.run(["wallet", "list", "--home", world.home.path])
        #expect(list.status == 0, "\(list)")
        #expect(
            list.standardOutput.split(separator: "\n").filter { $0.contains("wal_") }.count == count,
            "exactly one wallet per distinct key")
        // A sample of keys never reached the home or the outputs.
        try JobsEndToEndTests.expectNoSecrets(
            keys: Array(keys.prefix(20)) + Array(keys.suffix(20)), passwords: [], in: [world.home],
            outputs: [final])
    }

    /// The data rows of a CSV file being written (lines after the header; 0 when absent).
    static func dataRows(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        return max(0, data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } - 1)
    }
}

/// Reproducible small random numbers for the kill moments.
struct SeededMoments {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(below bound: Int) -> Int {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
