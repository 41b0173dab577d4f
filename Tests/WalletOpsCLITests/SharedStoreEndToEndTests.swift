import Foundation
import TestSupport
import Testing

/// The run commands on a PostgreSQL run store (`--store`, `$WALLETOPS_RUN_STORE`) through the built
/// binary: two homes (two machines' worth of local state) see and resume the same runs, and a URL's
/// password shows nowhere.
@Suite(.serialized) struct SharedStoreEndToEndTests {
    @Test func twoHomesShareTheRunsOfOneStore() throws {
        let url = try TestPostgres.freshDatabase()
        let space = try RunManagementEndToEndTests.flakySpace()
        let run = try space.run(["run", "flaky.yaml", "--store", url])
        #expect(run.status == 1, "\(run)")
        #expect(!FileManager.default.fileExists(atPath: space.home.appendingPathComponent("runs.sqlite").path))
        let report = try #require(try PlaybookWorkspace.json(space.read("home/reports/1.json")) as? [String: Any])
        let failed = try #require(report["failures_total"] as? Int)
        #expect(failed > 0 && failed < 100)

        // Another home, the store named by the environment: the same run, its counts and failures.
        let other = ["WALLETOPS_HOME": space.url("other-home").path, "WALLETOPS_RUN_STORE": url]
        let runs = try space.run(["runs", "--format", "json"], environment: other)
        let list = try #require(try PlaybookWorkspace.json(runs.standardOutput) as? [[String: Any]])
        #expect(list.count == 1, "\(runs)")
        #expect(list.first?["failed"] as? Int == failed)
        #expect(list.first?["succeeded"] as? Int == 100 - failed)
        let status = try space.run(["status", "1"], environment: other)
        #expect(status.standardOutput.contains("try   failed  100   100    \(100 - failed)"), "\(status)")
        let csv = try space.run(["failures", "1", "--format", "csv"], environment: other)
        #expect(csv.standardOutput.split(separator: "\r\n").count == failed + 1, "\(csv)")

        // `retry` from the other home redoes only the failed rows, in the same run.
        let retry = try space.run(["retry", "1"], environment: other)
        #expect(retry.status == 0 || retry.status == 1, "\(retry)")
        let again = try space.run(["runs", "--format", "json", "--store", url])
        let after = try #require(try PlaybookWorkspace.json(again.standardOutput) as? [[String: Any]])
        #expect(after.count == 1)
        #expect((after.first?["failed"] as? Int ?? 100) < failed, "\(again)")
        #expect(
            (after.first?["succeeded"] as? Int ?? 0) + (after.first?["failed"] as? Int ?? 0) == 100, "\(again)")

        usleep(20_000)
        let pruned = try space.run(["prune", "--older-than", "10ms", "--store", url])
        #expect(pruned.standardOutput == "pruned 1 run: 1\n", "\(pruned)")
    }

    @Test func aRunKilledOnOneHomeResumesFromAnotherAndAppendsEachKeyOnce() throws {
        let url = try TestPostgres.freshDatabase()
        let space = try RunResumeEndToEndTests.makeSpace()
        space.environment["WALLETOPS_RUN_STORE"] = url
        let first = try space.start(RunResumeEndToEndTests.command, tag: "first")
        _ = space.wait(seconds: 60) { RunResumeEndToEndTests.appended(space) >= 5_000 || !first.isRunning }
        #expect(first.isRunning, "killed mid-run")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        // Another home: the run, its lock (a dead pid on this host) and its checkpoints are in the store.
        let resumed = try space.run(
            RunResumeEndToEndTests.command, environment: ["WALLETOPS_HOME": space.url("other").path])
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.standardError.contains("notice: run 1 of 'append' was locked by pid "), "\(resumed)")
        #expect(resumed.standardOutput.contains("append  succeeded  \(RunResumeEndToEndTests.items)"), "\(resumed)")
        RunResumeEndToEndTests.expectExactlyOnce(space)
    }

    @Test func aStorePasswordShowsInNoOutputOrRecord() throws {
        let url = try TestPostgres.freshDatabase()
        // The test server trusts loopback, so it lets in a URL with any password.
        let secret = "pg-pass-7f3a9c"
        let withPassword = url.replacingOccurrences(of: "postgres@", with: "postgres:\(secret)@")
        #expect(withPassword != url)
        let space = try PlaybookWorkspace()
        try space.write("p.yaml", "name: p\nsteps:\n  - {id: a, action: fail, with: {class: permanent}}\n")
        let run = try space.run(["run", "p.yaml", "--store", withPassword])
        #expect(run.status == 2, "aborted by its failure budget: \(run)")
        #expect(run.standardError.contains("walletops run p.yaml --store 'postgresql://postgres:***@"), "\(run)")
        let status = try space.run(["status", "1", "--store", withPassword])
        var seen = run.standardOutput + run.standardError + status.standardOutput + status.standardError
        seen += space.read("home/reports/1.json") + space.read("home/reports/1.md")
        let bad = try space.run(["runs", "--store", withPassword.replacingOccurrences(of: "/t_", with: "/none_")])
        #expect(bad.status == 74, "\(bad)")
        #expect(bad.standardError.contains("cannot open the run store postgresql://postgres:***@"), "\(bad)")
        seen += bad.standardError
        #expect(!seen.contains(secret))
        let dump = try space.run(
            [
                "-c", "psql '\(url)' -At -c \"SELECT string_agg(t::text, ' ') FROM walletops.run_attributes t\"",
            ], executable: "/bin/sh")
        #expect(dump.standardOutput.contains("***"), "\(dump)")
        #expect(!dump.standardOutput.contains(secret))
    }

    @Test func twoHostsCheckingTheSameScheduleRunEachFiringOnce() throws {
        let url = try TestPostgres.freshDatabase()
        let space = try PlaybookWorkspace()
        try space.writeScheduled("books/every5.yaml", name: "every5", schedule: "*/5 * * * *", appendingTo: "ticks.txt")
        try space.writeScheduled("minutely/sweep.yaml", name: "sweep", schedule: "* * * * *", appendingTo: "sweeps.txt")
        space.environment["WALLETOPS_RUN_STORE"] = url
        // Each firing, two crontab lines on two hosts (two homes) start `due` at once, a second apart.
        for minute in stride(from: 5, through: 25, by: 5) {
            let times = [
                "2026-01-01T00:\(String(format: "%02d", minute)):30Z",
                "2026-01-01T00:\(String(format: "%02d", minute)):31Z",
            ]
            let hosts = try times.enumerated().map { index, time in
                try space.start(
                    ["due", "books", "--now", time, "--home", space.url("host\(index)").path], tag: "due\(index)")
            }
            for host in hosts { host.waitUntilExit() }
            #expect(hosts.allSatisfy { $0.terminationStatus == 0 })
            #expect(space.read("ticks.txt").split(separator: "\n").count == minute / 5, "firing at minute \(minute)")
        }
        // On the store's clock (no --now): the first check of a minutely schedule is due once.
        let hosts = try (0..<2).map { index in
            try space.start(["due", "minutely", "--home", space.url("host\(index)").path], tag: "minutely\(index)")
        }
        for host in hosts { host.waitUntilExit() }
        #expect(space.read("sweeps.txt") == "-\n", "\(space.read("minutely0.err")) \(space.read("minutely1.err"))")
        let runs = try space.run(["runs", "--format", "json"])
        #expect((try PlaybookWorkspace.json(runs.standardOutput) as? [[String: Any]])?.count == 6, "\(runs)")
    }
}
