import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A run is what it does (issue 25): the issue's stories through the built binary and the shipped
/// playbooks (jobs/revoke-sweep.yaml, jobs/import-keys.yaml): the night's sweep after a failed one, two
/// imports of different files at once on one home, a resumed import with fewer requests in flight, and an
/// input changed after a kill.
@Suite(.serialized) struct RunIdentityEndToEndTests {
    /// The sweep of the cron line (docs/jobs.md "Cron"): apply, a dated output.
    static func sweep(_ night: String, _ extra: KeyValuePairs<String, String> = [:]) -> [String] {
        PlaybookWorkspace.shipped(
            "revoke-sweep", ["mode": "apply", "select": "expired-or-non-caller", "output": "sweep-\(night).csv"])
            + extra.flatMap { ["--var", "\($0.key)=\($0.value)"] }
    }

    /// Last night's sweep aborted (its selection over `max_revocations`, exit 2); tonight's, the same line
    /// with tonight's output and the limit raised, runs without `--fresh` and names the run it leaves.
    @Test func tonightsSweepAfterLastNightsAbortNeedsNoFresh() throws {
        let space = try PlaybookWorkspace.signedIn()
        let seeded = try space.run([
            "run", Fixtures.repositoryRoot.appendingPathComponent("examples/seed-demo.yaml").path, "--var",
            "transfers=transfers.csv",
        ])
        try #require(seeded.status == 0, "\(seeded)")
        // Run 1 was the seed; run 2 is last night's sweep, run 3 tonight's.
        let lastNight = try space.run(Self.sweep("12-01", ["max_revocations": "1"]))
        #expect(lastNight.status == 2, "aborted: \(lastNight)")
        #expect(lastNight.standardError.contains("more than max_revocations 1"), "\(lastNight)")
        let tonight = try space.run(Self.sweep("12-02"))
        #expect(tonight.status == 0, "\(tonight)")
        #expect(tonight.standardOutput.contains("run 3 of 'revoke-sweep' completed"), "\(tonight)")
        #expect(
            tonight.standardError.contains(
                "notice: run 2 of 'revoke-sweep' is unfinished and left as it is (variable 'max_revocations' "
                    + "changed, variable 'output' changed); run 3 does this work."), "\(tonight)")
        #expect(tonight.standardError.contains("--resume 2 --accept-changes"), "\(tonight)")
        let swept = space.csvRows("sweep-12-02.csv")
        #expect(swept.contains { $0["result"] == "revoked" }, "\(swept)")
        #expect(!swept.contains { $0["result"] == "failed" }, "\(swept)")
    }

    /// Two imports of different files on one home at once: the second runs beside the first (its lock is
    /// its own work's), while the first's own command waits its turn (75, naming the holder).
    @Test func twoImportsOfDifferentFilesOnOneHomeRunAtOnce() throws {
        let space = try PlaybookWorkspace.signedIn()
        let rows = 800
        try space.writeImportKeys("a.csv", count: rows)
        try space.writeImportKeys("b.csv", count: 20, from: 100_001)
        // One key a request, one request at a time: the first import lasts while the second runs.
        let first = PlaybookWorkspace.importCommand(
            input: "a.csv", output: "a-imported.csv", ["batch": "1", "parallel": "1"])
        let a = try space.start(first + ["--progress-interval", "100ms"], tag: "a")
        defer { if a.isRunning { kill(a.processIdentifier, SIGKILL) } }
        #expect(space.wait(seconds: 60) { space.csvRows("a-imported.csv").count >= 5 || !a.isRunning })
        let b = try space.run(PlaybookWorkspace.importCommand(input: "b.csv", output: "b-imported.csv"))
        #expect(b.status == 0, "\(b)")
        #expect(!b.standardError.contains("locked"), "\(b)")
        let same = try space.run(first)
        try #require(a.isRunning, "the first import ended before the others ran beside it")
        #expect(same.status == 75, "the same work is locked: \(same)")
        #expect(same.standardError.contains("is locked by pid \(a.processIdentifier)@"), "\(same)")
        a.waitUntilExit()
        #expect(a.terminationStatus == 0, "\(space.read("a.err"))")
        #expect(space.csvRows("a-imported.csv").count == rows)
        #expect(space.csvRows("b-imported.csv").count == 20)
        #expect(
            Set(space.csvRows("a-imported.csv").map { $0["address"]! }).isDisjoint(
                with: space.csvRows("b-imported.csv").map { $0["address"]! }))
    }

    /// Starts the import of `rows` keys with `vars`, and SIGKILLs it once its output holds `killAt` rows.
    static func killedImport(
        _ space: PlaybookWorkspace, rows: Int, killAt: Int, _ vars: KeyValuePairs<String, String>
    ) throws {
        let command = PlaybookWorkspace.importCommand(input: "keys.csv", output: "imported.csv", vars)
        let run = try space.start(command + ["--progress-interval", "100ms"], tag: "killed")
        defer { if run.isRunning { kill(run.processIdentifier, SIGKILL) } }
        #expect(space.wait(seconds: 60) { space.csvRows("imported.csv").count >= killAt || !run.isRunning })
        try #require(run.isRunning, "the import ended before the kill: \(space.read("killed.err"))")
        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        #expect(space.csvRows("imported.csv").count < rows, "killed mid-run")
    }

    /// An import killed with 3 chunks in flight resumes with `--var parallel=2` (a var that does not change
    /// the work): the same run, every key once.
    @Test func aResumedImportWithFewerRequestsInFlightResumes() throws {
        let space = try PlaybookWorkspace.signedIn()
        let rows = 2_000
        try space.writeImportKeys("keys.csv", count: rows)
        try Self.killedImport(space, rows: rows, killAt: 50, ["batch": "10", "parallel": "3"])
        let resumed = try space.run(
            PlaybookWorkspace.importCommand(
                input: "keys.csv", output: "imported.csv", ["batch": "10", "parallel": "2"]))
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.standardError.contains("resuming run 1"), "\(resumed)")
        #expect(resumed.standardOutput.contains("run 1 of 'import-keys' completed"), "\(resumed)")
        let sources = space.csvRows("imported.csv").map { $0["source"]! }
        #expect(sources.count == rows && Set(sources).count == rows, "every key once: \(sources.count)")
    }

    /// An import killed, then its input file changed: the same command is other work, a new run that
    /// names the one it leaves and how to return to it, never a silent resume over moved rows.
    @Test func aChangedInputAfterAKillIsNamedNotSilentlyResumed() throws {
        let space = try PlaybookWorkspace.signedIn()
        let rows = 2_000
        try space.writeImportKeys("keys.csv", count: rows)
        try Self.killedImport(space, rows: rows, killAt: 50, ["batch": "10", "parallel": "1"])
        try space.writeImportKeys("keys.csv", count: rows + 1)
        let next = try space.run(PlaybookWorkspace.importCommand(input: "keys.csv", output: "imported.csv"))
        #expect(next.status == 0, "\(next)")
        #expect(!next.standardError.contains("resuming run"), "\(next)")
        #expect(next.standardOutput.contains("run 2 of 'import-keys' completed"), "\(next)")
        #expect(
            next.standardError.contains("notice: run 1 of 'import-keys' is unfinished and left as it is (input "),
            "\(next)")
        #expect(next.standardError.contains("changed); run 2 does this work."), "\(next)")
        #expect(next.standardError.contains("--resume 1 --accept-changes"), "\(next)")
        #expect(space.csvRows("imported.csv").count == rows + 1)
        let runs = try PlaybookWorkspace.json(try space.run(["runs", "--format", "json"]).standardOutput)
        #expect((runs as? [[String: Any]])?.first { $0["id"] as? Int == 1 }?["status"] as? String == "running")
    }
}
