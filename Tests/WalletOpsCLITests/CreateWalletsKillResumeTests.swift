import Foundation
import TestSupport
import Testing

/// `jobs/create-wallets.yaml` with 20,000 wallets, SIGKILLed at five random moments (on the job's own
/// progress: the size of its output, written in place as the watermark advances) and resumed each time:
/// exactly 20,000 wallets, references 1...20000 each once, the output holding each row once, the report's
/// counts equal to the rows, and the last resumed run sending only what was not finished.
///
/// Round k's kill lands when the output holds between 16k+4 % and 16k+15 % of the rows, from the seed
/// `WALLETOPS_KILL_TEST_SEED` (printed for replay, random when unset), as in ``JobsKillResumeTests``.
@Suite(.serialized) struct CreateWalletsKillResumeTests {
    static let count = 20_000
    /// The step's chunks: 500 references (so the output grows in many steps a poll can catch), 8 in flight.
    static let (batch, parallel) = (500, 8)

    @Test(.timeLimit(.minutes(10))) func createKilledFiveTimesAtRandomAndResumed() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let output = world.path("wallets.csv")
        let arguments = [
            "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/create-wallets.yaml").path, "--home",
            world.home.path, "--var", "count=\(Self.count)", "--var", "output=\(output)", "--var",
            "batch=\(Self.batch)", "--var", "parallel=\(Self.parallel)", "--var", "core=",
        ]
        let seed =
            UInt64(ProcessInfo.processInfo.environment["WALLETOPS_KILL_TEST_SEED"] ?? "")
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("kill moments seed \(seed) (WALLETOPS_KILL_TEST_SEED)")
        var moments = SeededMoments(seed: seed)
        let targets = (0..<5).map { round in Self.count * (round * 16 + 4 + moments.next(below: 12)) / 100 }
        var seenAtLastKill = 0
        for (round, target) in zip(1...5, targets) {
            seenAtLastKill = try world.killMidRun(
                arguments, round: round, output: output, target: target, poll: .milliseconds(5), inPlace: true,
                rows: Self.rowsWritten)
        }
        // What the killed runs made: the resumed run finds those of them not yet checkpointed.
        let madeBeforeResume = try Self.wallets(world).count

        let final = try BuiltBinary.run(arguments, directory: world.scratch)
        #expect(final.status == 0, "\(final)")
        let report = try RunReportFile(of: final)
        // The report counts the rows: every reference succeeded, the ones checkpointed at the last kill resumed.
        #expect(report.count("total") == Self.count)
        #expect(report.count("succeeded") == Self.count)
        #expect(report.count("failed") == 0 && report.count("rejected") == 0)
        let resumed = try #require(report.count("resumed"))
        // Nothing finished is sent again: the resumed run sent only the references without a checkpoint, and of
        // those only the ones in flight at the kill had been made already.
        let (sent, created, found) = (report.work("sent"), report.work("created"), report.work("found"))
        // Rows written but not yet checkpointed at the kill are truncated and done again (docs/engine.md
        // "Output sinks"): each was made already, so the resumed run finds it; the output is ahead of
        // the checkpoint by no more than that.
        #expect(
            seenAtLastKill - resumed <= found,
            "resumed \(resumed), \(seenAtLastKill) were in the output at the kill, \(found) found done")
        print("resumed run: \(resumed) rows resumed, sent \(sent), created \(created), found \(found) (sent again)")
        #expect(sent == Self.count - resumed, "sent \(sent), \(Self.count - resumed) references were left")
        #expect(report.work("requests") >= (sent + Self.batch - 1) / Self.batch, "at most a batch per request")
        #expect(created + found == sent)
        #expect(found == madeBeforeResume - resumed, "the core had \(madeBeforeResume) wallets, \(resumed) resumed")
        #expect(
            found <= Self.batch * Self.parallel,
            "\(found) references sent again, more than the \(Self.parallel) x \(Self.batch) in flight")
        #expect(created == Self.count - madeBeforeResume)

        let rows = JobsEndToEndTests.parseCSV(world.read("wallets.csv"))
        #expect(rows.count == Self.count)
        #expect(
            rows.map { $0["reference"] ?? "" } == (1...Self.count).map { "wallet-\($0)" },
            "each reference once, in order")
        #expect(Set(rows.map { $0["wallet_id"] ?? "" }).count == Self.count, "each row its own wallet")
        #expect(Set(rows.map { $0["address"] ?? "" }).count == Self.count)
        // The core holds exactly these wallets: nothing made twice by the killed runs.
        let listed = try Self.wallets(world)
        #expect(listed.count == Self.count, "exactly \(Self.count) wallets")
        #expect(Set(listed.map { $0["id"] ?? "" }) == Set(rows.map { $0["wallet_id"] ?? "" }))
        #expect(Set(listed.map { $0["reference"] ?? "" }).count == Self.count, "no reference twice in the core")
    }

    /// The wallets of the world's home (`walletops wallet list --format csv`).
    static func wallets(_ world: JobsEndToEndTests.JobsWorld) throws -> [[String: String]] {
        let list = try BuiltBinary.run(["wallet", "list", "--home", world.home.path, "--format", "csv"])
        #expect(list.status == 0, "\(list)")
        return JobsEndToEndTests.parseCSV(list.standardOutput)
    }

    /// About how many rows the partial output holds so far, from its size (a row is 100-110 bytes), so a
    /// poll costs a stat, not a read of the file.
    static func rowsWritten(_ path: String) -> Int {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return size / 110
    }
}
