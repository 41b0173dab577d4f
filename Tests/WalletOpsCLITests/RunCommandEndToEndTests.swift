import Foundation
import TestSupport
import Testing

/// `walletops run`, `validate` and `plan` through the built binary: exit codes, output, reports,
/// locks and redaction.
@Suite(.serialized) struct RunCommandEndToEndTests {
    static func playbook(name: String, step: String) -> String {
        """
        name: \(name)
        concurrency: 4
        inputs:
          keys: {csv: keys.csv, columns: [id]}
        steps:
        \(step)
        """
    }

    /// A playbook that sleeps `duration` per key, one at a time: slow enough to watch or interrupt.
    static func napPlaybook(name: String, duration: String) -> String {
        playbook(
            name: name,
            step: "  - {id: nap, action: sleep, for_each: keys, concurrency: 1, with: {duration: \(duration)}}")
    }

    @Test func helpWithAPlaybookListsItsVars() throws {
        let space = try PlaybookWorkspace()
        let job = Fixtures.repositoryRoot.appendingPathComponent("jobs/import-keys.yaml").path
        let help = try space.run(["run", job, "--help"])
        #expect(help.status == 0, "\(help)")
        let text = help.standardOutput
        #expect(text.hasPrefix("OVERVIEW: Run a playbook"), "the command's own help first")
        #expect(text.contains("Vars of import-keys (\(job)):"), "\(text)")
        let input = text.split(separator: "\n").first { $0.hasPrefix("--var input=") } ?? ""
        #expect(input.contains("path") && input.contains("(required)") && input.contains("A CSV file"), "\(input)")
        let parallel = text.split(separator: "\n").first { $0.hasPrefix("--var parallel=") } ?? ""
        #expect(parallel.contains("(a resume may change it)"), "\(parallel)")
        let format = text.split(separator: "\n").first { $0.hasPrefix("--var format=") } ?? ""
        #expect(format.contains("One of hex-csv, base58-csv"), "\(format)")
        let plain = try space.run(["run", "--help"])
        #expect(!plain.standardOutput.contains("Vars of"), "no playbook, no vars")
    }

    @Test func allSucceededExitsZeroWithSummaryLinesAndReports() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 50)
        try space.write(
            "ok.yaml",
            Self.playbook(name: "ok", step: "  - {id: work, action: noop, for_each: keys}"))
        let result = try space.run(["run", "ok.yaml"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("run 1 of 'ok' completed"), "\(result)")
        #expect(result.standardOutput.contains("work  succeeded  50     50"), "\(result)")
        #expect(!result.standardOutput.contains("\u{1B}["), "no terminal escapes when stdout is not a terminal")
        let report = try PlaybookWorkspace.json(
            String(contentsOf: space.home.appendingPathComponent("reports/1.json"), encoding: .utf8))
        let object = try #require(report as? [String: Any])
        #expect(object["status"] as? String == "completed")
        #expect(object["exit_code"] as? Int == 0)
        #expect(FileManager.default.fileExists(atPath: space.home.appendingPathComponent("reports/1.md").path))
        let mode = try FileManager.default.attributesOfItem(atPath: space.home.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test func failedItemsExitOne() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 100)
        try space.write(
            "some.yaml",
            Self.playbook(
                name: "some",
                step: """
                      - id: flaky
                        action: fail
                        for_each: keys
                        max_failures: "100%"
                        with: {probability: 0.3, seed: 7}
                    """))
        let result = try space.run(["run", "some.yaml"])
        #expect(result.status == 1, "\(result)")
        let report = try #require(
            try PlaybookWorkspace.json(space.read("home/reports/1.json")) as? [String: Any])
        let failed = try #require(report["failures_total"] as? Int)
        #expect(failed > 10 && failed < 60, "about 30% of 100 fail: \(failed)")
        #expect((report["failures"] as? [Any])?.count == failed)
    }

    @Test func failureBudgetAbortsWithTwo() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 200)
        try space.write(
            "budget.yaml",
            Self.playbook(
                name: "budget",
                step: """
                      - id: broken
                        action: fail
                        for_each: keys
                        max_failures: 2
                        concurrency: 1
                    """))
        let result = try space.run(["run", "budget.yaml"])
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError.contains("run 1 aborted"), "\(result)")
        #expect(result.standardError.contains("walletops run budget.yaml"), "the resume command is printed")
    }

    @Test func invalidPlaybookExits64() throws {
        let space = try PlaybookWorkspace()
        try space.write(
            "bad.yaml",
            """
            name: bad
            steps:
              - id: a
                action: nope
              - id: b
                action: noop
                nedds: [a]

            """)
        let run = try space.run(["run", "bad.yaml"])
        #expect(run.status == 64, "\(run)")
        let validate = try space.run(["validate", "bad.yaml"])
        #expect(validate.status == 64, "\(validate)")
        #expect(validate.standardOutput == "")
        // Every problem at once, each with its source line and a caret.
        #expect(validate.standardError.contains("bad.yaml:4:13: error: unknown action 'nope'"), "\(validate)")
        #expect(validate.standardError.contains("bad.yaml:7:5: error: unknown key 'nedds'"), "\(validate)")
        #expect(validate.standardError.contains("\n    nedds: [a]\n    ^"), "\(validate)")
        #expect(validate.standardError.hasSuffix("2 errors in bad.yaml\n"), "\(validate)")
        try space.write("good.yaml", "name: good\nsteps:\n  - {id: a, action: noop}\n")
        let good = try space.run(["validate", "good.yaml"])
        #expect(good.status == 0, "\(good)")
        #expect(good.standardOutput == "good.yaml: valid playbook 'good', 1 step\n")
    }

    @Test func planCountsItemsRedactsSecretsAndRunsNothing() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 1234)
        try space.write(
            "plan.yaml",
            """
            name: plan
            vars:
              out: {type: path, default: out.txt}
            secrets:
              token: {env: PLAN_TOKEN}
            inputs:
              keys: {csv: keys.csv, columns: [id]}
            steps:
              - id: first
                action: append
                for_each: keys
                with: {path: "${{ vars.out }}", auth: "Bearer ${{ secrets.token }}"}
              - {id: last, action: noop, needs: [first]}

            """)
        let secret = "plan-secret-\(UInt64.random(in: 1...UInt64.max))"
        let result = try space.run(["plan", "plan.yaml"], environment: ["PLAN_TOKEN": secret])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("  first: append, for each item of input 'keys', 1234 items\n"))
        #expect(result.standardOutput.contains("  last: noop, needs first, 1 item\n"))
        #expect(result.standardOutput.contains(#"    row:1 {"id":"1"} with {"auth":"Bearer ***","path":"out.txt"}"#))
        #expect(result.standardOutput.contains("nothing was executed"))
        #expect(!(result.standardOutput + result.standardError).contains(secret))
        #expect(!FileManager.default.fileExists(atPath: space.url("out.txt").path), "plan executes nothing")
        #expect(!FileManager.default.fileExists(atPath: space.home.appendingPathComponent("runs.sqlite").path))
    }

    @Test func cronStyleRunPrintsSummaryLinesNotTheLiveDisplay() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 60)
        try space.write(
            "slow.yaml",
            Self.napPlaybook(name: "slow", duration: "25ms"))
        // Standard output a file (a redirect in a crontab), then a pipe (cron mailing the output).
        let toFile = try space.start(["run", "slow.yaml", "--progress-interval", "300ms"], tag: "cron")
        toFile.waitUntilExit()
        #expect(toFile.terminationStatus == 0)
        let piped = Process()
        piped.executableURL = try BuiltBinary.url()
        piped.arguments = ["run", "slow.yaml", "--progress-interval", "300ms", "--fresh"]
        piped.currentDirectoryURL = space.directory
        piped.environment = ProcessInfo.processInfo.environment.merging(space.environment) { $1 }
        let pipe = Pipe()
        piped.standardOutput = pipe
        piped.standardError = FileHandle.nullDevice
        try piped.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        piped.waitUntilExit()
        let result = CLIResult(
            status: piped.terminationStatus, standardOutput: String(decoding: output, as: UTF8.self), standardError: "")
        #expect(result.status == 0, "\(result)")
        #expect(space.read("cron.out").contains("progress "), "a file as standard output is treated the same")
        let progress = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("progress ") }
        #expect(progress.count >= 2, "\(result)")
        #expect(progress.allSatisfy { $0.contains("nap ") && $0.contains("/60 (") && $0.contains("/s") })
        #expect(!result.standardOutput.contains("\u{1B}["), "no cursor movement off a terminal")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func onATerminalTheProgressLineIsRedrawnInPlace() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 40)
        try space.write(
            "live.yaml",
            Self.napPlaybook(name: "live", duration: "25ms"))
        // script(1) gives the child a pseudo-terminal as standard output.
        let binary = try BuiltBinary.url().path
        let result = try space.run(["-qec", "\(binary) run live.yaml", "/dev/null"], executable: "/usr/bin/script")
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("\u{1B}[2Knap "), "live line drawn: \(result)")
        #expect(result.standardOutput.contains("\u{1B}[1A\r"), "and redrawn in place")
        #expect(!result.standardOutput.contains("progress "), "no summary lines on a terminal")
        #expect(result.standardOutput.contains("run 1 of 'live' completed"))
    }

    @Test func jsonLogFormatEmitsEventsForStepsRunsAndFailures() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 20)
        try space.write(
            "events.yaml",
            Self.playbook(
                name: "events",
                step: """
                      - id: reject
                        action: fail
                        for_each: keys
                        max_failures: "100%"
                        with: {probability: 0.5, reject: true, seed: 3}
                    """))
        let result = try space.run(["run", "events.yaml", "--log-format", "json"])
        #expect(result.status == 1, "\(result)")
        let events = try result.standardOutput.split(separator: "\n").map {
            try #require(try PlaybookWorkspace.json(String($0)) as? [String: Any])
        }
        let kinds = events.compactMap { $0["event"] as? String }
        #expect(kinds.first == "run-start")
        #expect(kinds.last == "run-end")
        #expect(kinds.contains("step-start") && kinds.contains("step-end"))
        let rejected = events.filter { $0["event"] as? String == "item-rejected" }
        #expect(rejected.count == (events.last?["rejected"] as? Int), "one event per rejected item")
        #expect(!rejected.isEmpty)
    }

    @Test func aFailedRunShowsItsFirstFailedRowsBeforeTheSummaryAndInTheJSONLog() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 15)
        try space.write(
            "failing.yaml",
            Self.playbook(
                name: "failing",
                step: """
                      - id: refuse
                        action: fail
                        for_each: keys
                        max_failures: "100%"
                        with: {probability: 1, class: permanent, message: "refused row ${{ item.id }}"}
                    """))
        let plain = try space.run(["run", "failing.yaml"])
        #expect(plain.status == 1, "\(plain)")
        let lines = plain.standardError.split(separator: "\n").filter { $0.hasPrefix("failed: step 'refuse' row:") }
        #expect(lines.count == 10, "\(plain.standardError)")
        #expect(lines.first == "failed: step 'refuse' row:1 (permanent): refused row 1", "\(plain.standardError)")
        #expect(plain.standardError.contains("and 5 more failed rows: walletops failures 1"))

        let json = try space.run(["run", "failing.yaml", "--log-format", "json", "--fresh"])
        #expect(json.status == 1, "\(json)")
        // Standard output holds JSON lines only.
        let events = try json.standardOutput.split(separator: "\n").map {
            try #require(try PlaybookWorkspace.json(String($0)) as? [String: Any], "not JSON: \($0)")
        }
        let failures = try #require(events.first { $0["event"] as? String == "run-failures" })
        #expect(failures["total"] as? Int == 15)
        let listed = try #require(failures["failures"] as? [[String: Any]])
        #expect(listed.count == 10)
        #expect(listed.first?["class"] as? String == "permanent")
        #expect((listed.first?["message"] as? String)?.hasPrefix("refused row") == true)
        #expect(events.last?["event"] as? String == "run-end")
    }

    @Test func secondRunOfALockedPlaybookExits75NamingTheHolder() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 400)
        try space.write(
            "locked.yaml",
            Self.napPlaybook(name: "locked", duration: "50ms"))
        let first = try space.start(["run", "locked.yaml", "--progress-interval", "100ms"], tag: "first")
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        #expect(space.wait(seconds: 30) { space.read("first.out").contains("progress ") }, "the first run started")
        let second = try space.run(["run", "locked.yaml"])
        #expect(second.status == 75, "\(second)")
        #expect(second.standardError.contains("is locked by pid \(first.processIdentifier)@"), "\(second)")
        #expect(second.standardError.contains(", started at 20"), "\(second)")
        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        #expect(first.terminationStatus == 75, "interrupted: \(space.read("first.err"))")
        #expect(space.read("first.err").contains("Resume with:\n  walletops run locked.yaml"))
    }

    @Test func aSecretFromTheEnvironmentAppearsNowhere() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 30)
        try space.write(
            "secret.yaml",
            """
            name: secret
            secrets:
              token: {env: SECRET_TOKEN}
            inputs:
              keys: {csv: keys.csv, columns: [id]}
            steps:
              - id: leak
                action: fail
                for_each: keys
                max_failures: "100%"
                with: {probability: 0.5, message: "item ${{ item.id }} refused token ${{ secrets.token }}"}
              - id: echo
                action: write
                for_each: keys
                with: {path: report.csv, columns: [id]}

            """)
        let secret = "tok-\(UInt64.random(in: 1...UInt64.max))-zz"
        var outputs = ""
        for arguments in [
            ["run", "secret.yaml"], ["run", "secret.yaml", "--fresh", "--log-format", "json"], ["failures", "2"],
            ["failures", "2", "--format", "json"], ["plan", "secret.yaml"], ["status", "2"],
        ] {
            let result = try space.run(arguments, environment: ["SECRET_TOKEN": secret])
            outputs += result.standardOutput + result.standardError
        }
        #expect(outputs.contains("refused token ***"), "the failure messages are there, redacted")
        #expect(!outputs.contains(secret))
        // A run killed mid-way leaves its write-ahead log behind: check those bytes too.
        try space.write(
            "slow-secret.yaml",
            """
            name: slow-secret
            secrets:
              token: {env: SECRET_TOKEN}
            inputs:
              keys: {csv: keys.csv, columns: [id]}
            steps:
              - id: leak
                action: fail
                for_each: keys
                max_failures: "100%"
                with: {probability: 1, message: "refused ${{ secrets.token }}"}
              - {id: nap, action: sleep, with: {duration: 60s}}

            """)
        space.environment["SECRET_TOKEN"] = secret
        let slow = try space.start(["run", "slow-secret.yaml", "--log-format", "json"], tag: "slow")
        #expect(space.wait(seconds: 60) { space.read("slow.out").contains(#""status":"failed","step":"leak""#) })
        usleep(300_000)  // past the next checkpoint flush
        kill(slow.processIdentifier, SIGKILL)
        slow.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: space.home.appendingPathComponent("runs.sqlite-wal").path))
        #expect(space.read("slow.out").contains("refused ***"))
        var files = 0
        let folders = [space.home, space.home.appendingPathComponent("reports"), space.directory]
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let file = folder.appendingPathComponent(name)
                guard let data = FileManager.default.contents(atPath: file.path) else { continue }
                files += 1
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(file.path) holds the secret")
            }
        }
        #expect(files >= 6, "runs.sqlite, reports, inputs checked")
    }
}
