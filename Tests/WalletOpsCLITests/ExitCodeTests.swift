import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The rows of docs/cli.md's exit-code table that no other suite provokes, through the real binary
/// (the table in docs/cli.md names the test of every row): a core that is down when a job starts is
/// retried by the step's policy and then exits 75, and the same command runs once it is back; SIGINT
/// interrupts a run with 75; a resume refused because the work changed is 2.
@Suite(.serialized) struct ExitCodeTests {
    /// The JSON lines of a `--log-format json` run's standard output; fails on any other line.
    static func events(_ result: CLIResult) throws -> [[String: Any]] {
        try result.standardOutput.split(separator: "\n").map {
            try #require(try PlaybookWorkspace.json(String($0)) as? [String: Any], "not a JSON line: \($0)")
        }
    }

    /// The sweep (the issue's story: it exited 2 at once, `permanent`, not retried) and the import against
    /// a served core that is down from the start: each step's retry policy runs (`item-retry` events,
    /// class `retryable`), then exit 75 saying the core is unreachable; with the core back, the same
    /// command finishes.
    @Test func aCoreThatIsDownIsRetriedThenExits75AndTheSameCommandRunsWhenItIsBack() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: true)
        let server = try #require(world.server)
        let core = world.core
        let port = server.port
        #expect(server.stop() == 0)
        let key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        try Data("private_key\n\(key)\n".utf8).write(to: URL(fileURLWithPath: world.path("keys.csv")))
        let jobs: [(playbook: String, step: String, attempts: Int, arguments: [String])] = [
            ("jobs/revoke-sweep.yaml", "select", 3, ["--var", "output=\(world.path("sweep.csv"))"]),
            (
                "jobs/import-keys.yaml", "import", 6,
                [
                    "--var", "input=\(world.path("keys.csv"))", "--var", "format=hex-csv", "--var",
                    "output=\(world.path("imported.csv"))", "--var",
                    "attestation_root=\(world.home.appendingPathComponent("attestation-root.pem").path)",
                ]
            ),
        ]
        var commands: [[String]] = []
        for job in jobs {
            let arguments =
                ["run", Fixtures.repositoryRoot.appendingPathComponent(job.playbook).path, "--home", world.home.path]
                + ["--core", core] + job.arguments
            commands.append(arguments)
            let down = try BuiltBinary.run(arguments + ["--log-format", "json"], directory: world.scratch)
            #expect(down.status == 75, "\(job.playbook): \(down)")
            #expect(down.standardError.contains("is unreachable"), "\(job.playbook): \(down.standardError)")
            let events = try Self.events(down)
            let retries = events.filter { $0["event"] as? String == "item-retry" && $0["step"] as? String == job.step }
            #expect(
                Set(retries.compactMap { $0["attempt"] as? Int }) == Set(1..<job.attempts),
                "\(job.playbook): every attempt but the last is retried: \(retries)")
            #expect(retries.allSatisfy { $0["class"] as? String == "retryable" }, "\(retries)")
            let end = try #require(events.last, "\(down)")
            #expect(end["event"] as? String == "run-end" && end["status"] as? String == "interrupted", "\(end)")
        }
        // The core is back on its port: the same commands resume their runs and finish.
        let again = try ServedBinary(home: world.home, listen: "127.0.0.1:\(port)")
        defer { _ = again.stop() }
        for arguments in commands {
            let back = try BuiltBinary.run(arguments, directory: world.scratch)
            #expect(back.status == 0, "\(back)")
            #expect(back.standardError.contains("resuming run"), "\(back)")
        }
        #expect(world.read("imported.csv").contains("0x"), "the key was imported: \(world.read("imported.csv"))")
    }

    /// SIGINT (Ctrl-C's signal) like SIGTERM: a graceful stop, exit 75, and the resume command printed.
    @Test func sigintInterruptsARunWith75() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 400)
        try space.write("nap.yaml", RunCommandEndToEndTests.napPlaybook(name: "nap", duration: "50ms"))
        let run = try space.start(["run", "nap.yaml", "--progress-interval", "100ms"], tag: "nap")
        defer { if run.isRunning { kill(run.processIdentifier, SIGKILL) } }
        #expect(space.wait(seconds: 30) { space.read("nap.out").contains("progress ") }, "the run started")
        kill(run.processIdentifier, SIGINT)
        run.waitUntilExit()
        #expect(run.terminationStatus == 75, "\(space.read("nap.err"))")
        #expect(space.read("nap.err").contains("received SIGINT: stopping"), "\(space.read("nap.err"))")
        #expect(space.read("nap.err").contains("Resume with:\n  walletops run nap.yaml"))
        #expect(space.read("nap.out").contains("run 1 of 'nap' interrupted"), "\(space.read("nap.out"))")
    }

    /// A piped run (no terminal) whose last rows are all in flight when SIGINT or SIGTERM comes: they finish
    /// within the grace period, so the run completed, exit 0 (it said `interrupted (exit 75)`), and its
    /// report says so; the notice of the signal is still printed.
    @Test(arguments: [SIGINT, SIGTERM]) func aRunWhoseWorkFinishedDuringTheGracePeriodExits0(signal: Int32) throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("keys.csv", count: 3)
        // Three rows of 1.5 s, three at once: every row is sent at once, and none is done at the signal.
        try space.write(
            "grace.yaml",
            RunCommandEndToEndTests.playbook(
                name: "grace",
                step: "  - {id: nap, action: sleep, for_each: keys, concurrency: 3, with: {duration: 1500ms}}"))
        let process = Process()
        process.executableURL = try BuiltBinary.url()
        process.arguments = ["run", "grace.yaml", "--log-format", "json", "--progress-interval", "100ms"]
        process.currentDirectoryURL = space.directory
        process.environment = ProcessInfo.processInfo.environment.merging(space.environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(
            forWritingTo: {
                _ = FileManager.default.createFile(atPath: space.url("grace.err").path, contents: nil)
                return space.url("grace.err")
            }())
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // The first progress event: the step runs, its three rows were handed out together.
        var text = ""
        while !text.contains(#""event":"progress""#) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        try #require(process.isRunning, "the run ended before the signal: \(text)")
        kill(process.processIdentifier, signal)
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let result = CLIResult(
            status: process.terminationStatus, standardOutput: text, standardError: space.read("grace.err"))
        #expect(result.status == 0, "\(result)")
        #expect(result.standardError.contains("received SIG"), "the notice: \(result.standardError)")
        let signalled = try Self.events(result).filter { $0["event"] as? String == "signal" }
        #expect(
            signalled.count == 1 && signalled.first?["signal"] as? String == (signal == SIGINT ? "SIGINT" : "SIGTERM"))
        #expect(signalled.first?["grace"] as? String == "10s", "\(signalled)")
        let end = try #require(try Self.events(result).last)
        #expect(end["event"] as? String == "run-end" && end["status"] as? String == "completed", "\(end)")
        #expect(end["succeeded"] as? Int == 3, "\(end)")
        let report = try #require(try PlaybookWorkspace.json(space.read("home/reports/1.json")) as? [String: Any])
        #expect(report["status"] as? String == "completed" && report["exit_code"] as? Int == 0, "\(report)")
        let status = try space.run(["status", "1", "--format", "json"])
        #expect(status.standardOutput.contains(#""status":"completed""#), "\(status)")
    }

    /// `lock: {scope: name}` (the sweep's): other work of the same playbook is locked out too, 75 naming the
    /// holder, while a playbook without it runs other work beside (RunIdentityEndToEndTests).
    @Test func aNameScopedLockRefusesOtherWorkOfTheNameWith75() throws {
        let space = try PlaybookWorkspace()
        try space.writeKeys("a.csv", count: 200)
        try space.writeKeys("b.csv", count: 5)
        try space.write(
            "scoped.yaml",
            """
            name: scoped
            lock: {scope: name}
            vars:
              input: {type: path, required: true}
            inputs:
              rows: {csv: "${{ vars.input }}", columns: [id]}
            steps:
              - {id: nap, action: sleep, for_each: rows, concurrency: 1, with: {duration: 50ms}}

            """)
        let first = try space.start(
            ["run", "scoped.yaml", "--var", "input=a.csv", "--progress-interval", "100ms"], tag: "a")
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        #expect(space.wait(seconds: 30) { space.read("a.out").contains("progress ") }, "the first run started")
        let other = try space.run(["run", "scoped.yaml", "--var", "input=b.csv"])
        #expect(other.status == 75, "\(other)")
        #expect(other.standardError.contains("is locked by pid \(first.processIdentifier)@"), "\(other)")
        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        let after = try space.run(["run", "scoped.yaml", "--var", "input=b.csv"])
        #expect(after.status == 0, "the lock is released with its run: \(after)")
    }

    /// A private key as a `--var` value (the issue's `--var password_file=0x...`): a usage error, 64, before
    /// anything is stored: the value is in no output and no file of the home or the folder.
    @Test func aKeyAsAVarValueIsRefusedWith64AndStoredNowhere() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        try Data("private_key\n".utf8).write(to: URL(fileURLWithPath: world.path("keys.csv")))
        var outputs: [CLIResult] = []
        for value in ["0x" + key, key] {
            let run = try world.run(
                "jobs/import-keys.yaml",
                ["input": world.path("keys.csv"), "format": "hex-csv", "password_file": value])
            #expect(run.status == 64, "\(run)")
            #expect(
                run.standardError.hasPrefix("Error: the value of '--var password_file=...' looks like a private key"),
                "\(run)")
            outputs.append(run)
        }
        let due = try BuiltBinary.run(
            ["due", world.scratch.path, "--home", world.home.path, "--var", "output=\(key)"], directory: world.scratch)
        #expect(due.status == 64, "\(due)")
        outputs.append(due)
        try JobsEndToEndTests.expectNoSecrets(keys: [key], passwords: [], in: [world.scratch], outputs: outputs)
        #expect(!FileManager.default.fileExists(atPath: world.home.appendingPathComponent("runs.sqlite").path))
    }

    /// `--resume N` of a run whose work changed, without `--accept-changes`: exit 2 (aborted), naming the change.
    @Test func aResumeOfOtherWorkIsRefusedWith2() throws {
        let space = try PlaybookWorkspace()
        try space.write(
            "changed.yaml",
            """
            name: changed
            vars:
              probability: {type: string, default: "0"}
            steps:
              - {id: s, action: fail, max_failures: 0, with: {probability: "${{ vars.probability }}"}}

            """)
        let first = try space.run(["run", "changed.yaml", "--var", "probability=1"])
        #expect(first.status == 2, "aborted by its failure budget: \(first)")
        let other = try space.run(["run", "changed.yaml", "--resume", "1"])
        #expect(other.status == 2, "\(other)")
        #expect(other.standardError.contains("variable 'probability' changed"), "\(other)")
        #expect(other.standardError.contains("--accept-changes"), "\(other)")
    }
}
