import Foundation
import TestSupport
import Testing

/// `jobs/create-wallets.yaml` with 20,000 wallets, SIGKILLed twice mid-run (on the job's own progress:
/// the size of its output, written in place as the watermark advances) and resumed: exactly 20,000
/// wallets, references 1...20000 each once, the output holding each row once.
@Suite(.serialized) struct CreateWalletsKillResumeTests {
    static let count = 20_000

    @Test(.timeLimit(.minutes(10))) func createKilledTwiceAndResumed() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let output = world.path("wallets.csv")
        // Chunks of 500, so the output grows in many steps a poll can catch.
        let arguments = [
            "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/create-wallets.yaml").path, "--home",
            world.home.path, "--var", "count=\(Self.count)", "--var", "output=\(output)", "--var", "batch=500",
            "--var", "core=",
        ]
        // A row is about 110 bytes; kill once a quarter, then once half of the references were written.
        var seenAtLastKill = 0
        for (round, rows) in [(1, Self.count / 4), (2, Self.count / 2)] {
            seenAtLastKill = try world.killMidRun(
                arguments, round: round, output: output, target: rows, poll: .milliseconds(5), inPlace: true,
                rows: Self.rowsWritten)
        }

        let final = try BuiltBinary.run(arguments, directory: world.scratch)
        #expect(final.status == 0, "\(final)")
        // The references the output held at the last kill are not sent again: the resumed run found them done.
        let reportLine = try #require(final.standardOutput.split(separator: "\n").first { $0.hasPrefix("report: ") })
        let reportPath = String(reportLine.dropFirst("report: ".count).dropLast(".md".count)) + ".json"
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath)))
                as? [String: Any])
        let resumed = try #require((report["steps"] as? [[String: Any]])?.first?["resumed"] as? Int)
        #expect(resumed >= seenAtLastKill, "resumed \(resumed) rows, \(seenAtLastKill) were in the output at the kill")
        let rows = JobsEndToEndTests.parseCSV(world.read("wallets.csv"))
        #expect(rows.count == Self.count)
        #expect(
            rows.map { $0["reference"] ?? "" } == (1...Self.count).map { "wallet-\($0)" },
            "each reference once, in order")
        #expect(Set(rows.map { $0["wallet_id"] ?? "" }).count == Self.count, "each row its own wallet")
        #expect(Set(rows.map { $0["address"] ?? "" }).count == Self.count)
        // The core holds exactly these wallets: nothing made twice by the killed runs.
        let list = try BuiltBinary.run(["wallet", "list", "--home", world.home.path, "--format", "csv"])
        #expect(list.status == 0, "\(list)")
        let listed = JobsEndToEndTests.parseCSV(list.standardOutput)
        #expect(listed.count == Self.count, "exactly \(Self.count) wallets")
        #expect(Set(listed.map { $0["id"] ?? "" }) == Set(rows.map { $0["wallet_id"] ?? "" }))
        #expect(Set(listed.map { $0["reference"] ?? "" }).count == Self.count, "no reference twice in the core")
    }

    /// About how many rows the partial output holds so far, from its size (a row is 100-110 bytes), so a
    /// poll costs a stat, not a read of the file.
    static func rowsWritten(_ path: String) -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return size / 110
    }
}
