import Foundation
import Testing

/// Crash and signal resume through real processes: a 50,000-item `append` run is killed and resumed
/// with the same command; at the end the file holds every key exactly once.
@Suite(.serialized) struct RunResumeEndToEndTests {
    static let items = 50_000

    static func makeSpace() throws -> PlaybookWorkspace {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: items)
        try space.write(
            "append.yaml",
            """
            name: append
            concurrency: 8
            inputs:
              keys: {csv: keys.csv, columns: [id]}
            steps:
              - id: append
                action: append
                for_each: keys
                with: {path: out.txt}

            """)
        return space
    }

    static let command = ["run", "append.yaml", "--progress-interval", "100ms"]

    /// Every key `row:1` ... `row:50000` exactly once.
    static func expectExactlyOnce(_ space: PlaybookWorkspace) {
        let counts = space.lineCounts("out.txt")
        #expect(counts.count == items, "distinct keys")
        let duplicates = counts.filter { $0.value != 1 }.count
        #expect(duplicates == 0, "keys appended more than once")
        #expect(counts["row:1"] == 1 && counts["row:\(items)"] == 1)
    }

    /// Lines in the output file so far.
    static func appended(_ space: PlaybookWorkspace) -> Int {
        (FileManager.default.contents(atPath: space.url("out.txt").path) ?? Data()).reduce(0) {
            $0 + ($1 == 10 ? 1 : 0)
        }
    }

    @Test func sigkillAtFiveRandomMomentsThenResumeAppendsEachKeyOnce() throws {
        let space = try Self.makeSpace()
        var generator = SystemRandomNumberGenerator()
        var killedMidRun = 0
        for round in 1...5 {
            // A random moment inside round's slice of the run (by items appended), so every kill lands
            // mid-run however fast the machine is; the first slice starts at 0 (killed while starting up).
            let target = (round - 1) * 9_000 + Int.random(in: 0..<7_000, using: &generator)
            let process = try space.start(Self.command, tag: "kill\(round)")
            _ = space.wait(seconds: 120) { Self.appended(space) >= target || !process.isRunning }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killedMidRun += 1
            }
            process.waitUntilExit()
            let runs =
                try PlaybookWorkspace.json(try space.run(["runs", "--format", "json"]).standardOutput)
                as? [[String: Any]]
            #expect(
                runs?.count == 1 && runs?.first?["status"] as? String == "running",
                "round \(round) left the run unfinished")
        }
        #expect(killedMidRun == 5)
        #expect(
            space.read("kill2.err").contains("notice: run 1 of 'append' was locked by pid "),
            "a dead holder's lock is taken over with a notice")
        let final = try space.run(Self.command)
        #expect(final.status == 0, "\(final)")
        #expect(final.standardOutput.contains("append  succeeded  50000  50000"), "\(final)")
        Self.expectExactlyOnce(space)
    }

    @Test func sigtermStopsGracefullyWith75AndResumeCompletes() throws {
        let space = try Self.makeSpace()
        let process = try space.start(Self.command, tag: "term")
        #expect(space.wait(seconds: 60) { space.read("term.out").contains("progress ") })
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 75, "\(space.read("term.err"))")
        #expect(space.read("term.err").contains("received SIGTERM"))
        #expect(space.read("term.err").contains("Resume with:\n  walletops run append.yaml --progress-interval 100ms"))
        let resumed = try space.run(Self.command)
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.standardError.contains("resuming run 1"), "\(resumed)")
        Self.expectExactlyOnce(space)
    }

    @Test func killRightAfterAProgressLineThenResume() throws {
        let space = try Self.makeSpace()
        var killed = 0
        var finished = false
        for round in 1...3 {
            let process = try space.start(Self.command, tag: "flush\(round)")
            // A progress line is printed right after a checkpoint flush: kill as close to it as we can.
            let lines = space.read("flush\(round).out").count
            _ = space.wait(seconds: 60) { space.read("flush\(round).out").count > lines + 20 || !process.isRunning }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            process.waitUntilExit()
            // A resumed round with little left can finish before its first progress line (a loaded machine
            // lets the rounds before it run further): the run is complete, and another command would start
            // a new run, appending every key again.
            let runs =
                try PlaybookWorkspace.json(try space.run(["runs", "--format", "json"]).standardOutput)
                as? [[String: Any]]
            if runs?.first?["status"] as? String != "running" {
                finished = true
                break
            }
        }
        #expect(killed >= 1, "at least one round was killed right after a progress line")
        if !finished {
            let final = try space.run(Self.command)
            #expect(final.status == 0, "\(final)")
        }
        Self.expectExactlyOnce(space)
    }

    @Test func aChangedInputStartsANewRunNamingTheOneItLeavesOrResumesWhenAccepted() throws {
        let space = try Self.makeSpace()
        let process = try space.start(Self.command, tag: "first")
        #expect(space.wait(seconds: 60) { space.read("first.out").contains("progress ") })
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try space.writeKeys("keys.csv", count: Self.items + 1)
        let accepted = try space.run(Self.command + ["--accept-changes"])
        #expect(accepted.status == 0, "\(accepted)")
        #expect(accepted.standardError.contains("resuming run 1"), "\(accepted)")
        #expect(space.lineCounts("out.txt").count == Self.items + 1)
        #expect(space.lineCounts("out.txt").values.allSatisfy { $0 == 1 })
        let fresh = try space.run(["run", "append.yaml", "--fresh"])
        #expect(fresh.status == 0, "\(fresh)")
        #expect(fresh.standardOutput.contains("run 2 of 'append' completed"), "\(fresh)")

        // Killed again, then the input changes: a new run does the new work, and says which run it leaves.
        try FileManager.default.removeItem(at: space.url("out.txt"))
        let third = try space.start(["run", "append.yaml", "--fresh"], tag: "third")
        #expect(space.wait(seconds: 60) { Self.appended(space) >= 1_000 || !third.isRunning })
        kill(third.processIdentifier, SIGKILL)
        third.waitUntilExit()
        try space.writeKeys("keys.csv", count: Self.items + 2)
        let next = try space.run(Self.command)
        #expect(next.status == 0, "\(next)")
        #expect(next.standardOutput.contains("run 4 of 'append' completed"), "\(next)")
        #expect(
            next.standardError.contains(
                "notice: run 3 of 'append' is unfinished and left as it is (input 'keys' changed); run 4 does this work."
            ),
            "\(next)")
        #expect(next.standardError.contains("--resume 3 --accept-changes"), "\(next)")
        let runs = try PlaybookWorkspace.json(try space.run(["runs", "--format", "json"]).standardOutput)
        #expect((runs as? [[String: Any]])?.first { $0["id"] as? Int == 3 }?["status"] as? String == "running")
    }
}
