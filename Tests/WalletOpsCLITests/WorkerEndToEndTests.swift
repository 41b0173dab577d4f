import Foundation
import TestSupport
import Testing

/// `walletops worker` through the built binary, on a PostgreSQL run store and a served core: workers
/// join a `walletops run`'s chunks, each row's effect happens once whoever worked it and whoever died,
/// and a worker that sees other inputs claims nothing.
@Suite(.serialized) struct WorkerEndToEndTests {
    static let count = 3_000

    /// `walletops run jobs/create-wallets.yaml` of `count` references in chunks of 10 on `store`.
    static func createCommand(_ world: JobsEndToEndTests.JobsWorld, store: String, lease: String = "2s") -> [String] {
        [
            "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/create-wallets.yaml").path, "--home",
            world.home.path, "--core", world.core, "--store", store, "--lease", lease, "--var", "count=\(count)",
            "--var", "batch=10", "--var", "parallel=2", "--var", "output=w.csv", "--progress-interval", "1s",
        ]
    }

    /// A worker on `store` with 2 s leases that exits after `idleExit` without work, started in `directory`
    /// (nil: the world's folder).
    static func worker(
        _ world: JobsEndToEndTests.JobsWorld, store: String, tag: String, idleExit: String = "3s",
        extra: [String] = [], directory: URL? = nil
    ) throws -> (Process, URL) {
        try start(
            [
                "worker", "--home", world.home.path, "--core", world.core, "--store", store, "--lease", "2s",
                "--poll", "50ms", "--idle-exit", idleExit,
            ] + extra, world: world, tag: tag, directory: directory)
    }

    /// Starts the built binary with output to `<tag>.log` in the world's folder, in `directory` (nil: the
    /// world's folder).
    static func start(
        _ arguments: [String], world: JobsEndToEndTests.JobsWorld, tag: String, directory: URL? = nil
    ) throws -> (Process, URL) {
        let log = URL(fileURLWithPath: world.path("\(tag).log"))
        try Data().write(to: log)
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = try BuiltBinary.url()
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        process.currentDirectoryURL = directory ?? world.scratch
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "WALLETOPS_HOME")
        environment.removeValue(forKey: "WALLETOPS_CORE")
        environment.removeValue(forKey: "WALLETOPS_RUN_STORE")
        process.environment = environment
        try process.run()
        return (process, log)
    }

    /// Items a worker's log says it did.
    static func itemsHere(_ log: URL) -> Int {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("run "), let range = line.range(of: ": ") else { return nil }
            return Int(line[range.upperBound...].split(separator: " ").first ?? "")
        }.reduce(0, +)
    }

    /// Waits (up to `seconds`, while `process` runs) until more than `count` chunk leases of `store` match
    /// `condition` (SQL); whether they did.
    static func waitForLeases(
        _ store: String, _ condition: String, moreThan count: Int, while process: Process, seconds: Double
    )
        throws -> Bool
    {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, process.isRunning {
            let leases = try BuiltBinary.run(
                ["-c", "psql '\(store)' -At -c \"SELECT count(*) FROM walletops.chunk_leases WHERE \(condition)\""],
                executable: "/bin/sh")
            if (Int(leases.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > count { return true }
            usleep(20_000)
        }
        return false
    }

    /// Every reference once in the mapping file, in input order, and once in the core's account.
    static func expectEachWalletOnce(_ world: JobsEndToEndTests.JobsWorld) throws {
        let rows = world.rows("w.csv")
        #expect(rows.count == count)
        #expect(rows.map { $0["reference"] ?? "" } == (1...count).map { "wallet-\($0)" }, "in input order")
        let list = try BuiltBinary.run([
            "wallet", "list", "--home", world.home.path, "--core", world.core, "--format", "csv",
        ])
        let ids = list.standardOutput.split(separator: "\n").dropFirst()
        #expect(ids.count == count, "wallets in the account: each reference made once")
    }

    @Test func twoWorkersJoinARunAndEachWalletIsMadeOnce() throws {
        let store = try TestPostgres.freshDatabase()
        let world = try JobsEndToEndTests.JobsWorld(served: true)
        // The workers start in another folder: nothing of the run (its output `w.csv`) lands there.
        let elsewhere = URL(fileURLWithPath: world.path("elsewhere"), isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let workers = try (0..<2).map {
            try Self.worker(world, store: store, tag: "worker\($0)", directory: elsewhere)
        }
        let run = try BuiltBinary.run(Self.createCommand(world, store: store), directory: world.scratch)
        #expect(run.status == 0, "\(run)")
        for (process, _) in workers { process.waitUntilExit() }
        #expect(
            workers.allSatisfy { $0.0.terminationStatus == 0 }, "\(workers.map { world.read($0.1.lastPathComponent) })")
        let shared = workers.map { Self.itemsHere($0.1) }
        #expect(
            shared.reduce(0, +) > 0,
            "the workers worked some of the run: \(workers.map { world.read($0.1.lastPathComponent) })")
        #expect(run.standardOutput.contains("succeeded  \(Self.count)"), "\(run)")
        try Self.expectEachWalletOnce(world)
        #expect(!FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("w.csv").path))
        print("WorkerEndToEndTests: the workers made \(shared) of \(Self.count) wallets")
        // From any host (another home): the run, its counts and its chunks.
        let status = try BuiltBinary.run(["status", "1", "--store", store, "--home", world.path("elsewhere")])
        #expect(status.standardOutput.contains("chunks of 'create': 300 of 300 done\n"), "\(status)")
        let json = try BuiltBinary.run(
            ["status", "1", "--format", "json", "--store", store, "--home", world.path("elsewhere")])
        let object = try #require(try PlaybookWorkspace.json(json.standardOutput) as? [String: Any])
        let chunks = try #require((object["chunks"] as? [[String: Any]])?.first)
        #expect(chunks["done"] as? Int == 300 && chunks["chunks"] as? Int == 300 && chunks["lapsed"] as? Int == 0)
    }

    @Test func aWorkerKilledMidChunkIsTakenOverAndNothingIsMadeTwice() throws {
        let store = try TestPostgres.freshDatabase()
        let world = try JobsEndToEndTests.JobsWorld(served: true)
        let (victim, victimLog) = try Self.worker(world, store: store, tag: "victim")
        let (runner, runLog) = try Self.start(Self.createCommand(world, store: store), world: world, tag: "run")
        // Killed while it holds a chunk it has not finished (its owner shows in the store's leases): killed
        // between two chunks, under a loaded machine, it would leave nothing to rescue.
        let claimed = try Self.waitForLeases(
            store, "owner LIKE '%:\(victim.processIdentifier)' AND state <> 'done'", moreThan: 0, while: runner,
            seconds: 60)
        kill(victim.processIdentifier, SIGKILL)
        victim.waitUntilExit()
        #expect(claimed, "the victim claimed chunks before it was killed: \(world.read(victimLog.lastPathComponent))")
        let (replacement, replacementLog) = try Self.worker(world, store: store, tag: "replacement")
        runner.waitUntilExit()
        replacement.waitUntilExit()
        let runText = world.read(runLog.lastPathComponent)
        #expect(runner.terminationStatus == 0, "\(runText)")
        #expect(replacement.terminationStatus == 0, "\(world.read(replacementLog.lastPathComponent))")
        try Self.expectEachWalletOnce(world)
        let events = try BuiltBinary.run(
            ["-c", "psql '\(store)' -At -c \"SELECT count(*) FROM walletops.events WHERE kind = 'chunk-rescued'\""],
            executable: "/bin/sh")
        #expect(
            (Int(events.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 1,
            "the victim's chunk was rescued")
    }

    /// A worker whose session is over stops at its first request with exit 1 and says to sign in, rather
    /// than joining the run again and again; it made nothing, and the run's own process finishes the work.
    @Test func aWorkerWhoseSessionExpiredStopsAndSaysToSignIn() throws {
        let store = try TestPostgres.freshDatabase()
        let world = try JobsEndToEndTests.JobsWorld(served: true)
        let (runner, runLog) = try Self.start(Self.createCommand(world, store: store), world: world, tag: "run")
        // The run signed in before this point: wait until its chunks are being worked.
        let started = try Self.waitForLeases(store, "state = 'done'", moreThan: 0, while: runner, seconds: 120)
        #expect(started, "\(world.read(runLog.lastPathComponent))")
        // The home's stored credential is now a session shorter than the 30 s skew: over at once.
        let login = try BuiltBinary.run([
            "login", "--dev", "--email", "ops@example.com", "--home", world.home.path, "--core", world.core,
            "--lifetime", "20",
        ])
        #expect(login.status == 0, "\(login)")
        let (worker, workerLog) = try Self.worker(world, store: store, tag: "expired", idleExit: "60s")
        worker.waitUntilExit()
        let workerText = world.read(workerLog.lastPathComponent)
        #expect(worker.terminationStatus == 1, "\(workerText)")
        #expect(workerText.contains("Error: session expired at "), "\(workerText)")
        #expect(
            workerText.contains("Sign in on this host (walletops login --home \(world.home.path))"), "\(workerText)")
        #expect(Self.itemsHere(workerLog) == 0, "\(workerText)")
        runner.waitUntilExit()
        #expect(runner.terminationStatus == 0, "\(world.read(runLog.lastPathComponent))")
        let again = try BuiltBinary.run([
            "login", "--dev", "--email", "ops@example.com", "--home", world.home.path, "--core", world.core,
        ])
        #expect(again.status == 0, "\(again)")
        try Self.expectEachWalletOnce(world)
    }

    /// A worker whose core dies under it stops with exit 75 (temporary: retry later) and says the core is
    /// unreachable, as the run's own process does; with the core back, the same command finishes the run
    /// and every wallet exists once.
    @Test func aWorkerWhoseCoreDiesStopsWith75() throws {
        let store = try TestPostgres.freshDatabase()
        let world = try JobsEndToEndTests.JobsWorld(served: true)
        guard let server = world.server else { throw TestFailure("no served core") }
        let (worker, workerLog) = try Self.worker(world, store: store, tag: "orphan", idleExit: "60s")
        let (runner, runLog) = try Self.start(Self.createCommand(world, store: store), world: world, tag: "run")
        // The core dies while the worker holds a chunk it has not finished.
        let working = try Self.waitForLeases(
            store, "owner LIKE '%:\(worker.processIdentifier)' AND state <> 'done'", moreThan: 0, while: runner,
            seconds: 60)
        #expect(working, "the worker claimed a chunk: \(world.read(workerLog.lastPathComponent))")
        #expect(server.stop(signal: SIGKILL) == SIGKILL)
        worker.waitUntilExit()
        runner.waitUntilExit()
        let workerText = world.read(workerLog.lastPathComponent)
        let runText = world.read(runLog.lastPathComponent)
        #expect(worker.terminationStatus == 75, "\(workerText)")
        #expect(workerText.contains("is unreachable"), "\(workerText)")
        #expect(workerText.contains("its chunks in flight given back (retry later)"), "\(workerText)")
        #expect(runner.terminationStatus == 75, "\(runText)")
        #expect(runText.contains("is unreachable"), "\(runText)")
        // The core back on its port: the same command resumes the run and finishes it.
        let revived = try ServedBinary(home: world.home, listen: "127.0.0.1:\(server.port)")
        let again = try BuiltBinary.run(Self.createCommand(world, store: store), directory: world.scratch)
        #expect(again.status == 0, "\(again)")
        try Self.expectEachWalletOnce(world)
        _ = revived
    }

    @Test func aWorkerThatSeesAnotherInputClaimsNothing() throws {
        let store = try TestPostgres.freshDatabase()
        let world = try JobsEndToEndTests.JobsWorld(served: true)
        var keys = "private_key\n"
        for n in 1...5_000 { keys += String(repeating: "0", count: 60) + String(format: "%04x", n) + "\n" }
        let file = URL(fileURLWithPath: world.path("keys.csv"))
        try Data(keys.utf8).write(to: file)
        let (runner, runLog) = try Self.start(
            [
                "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/import-keys.yaml").path, "--home",
                world.home.path, "--core", world.core, "--store", store, "--var", "input=keys.csv", "--var",
                "format=hex-csv", "--var", "batch=10", "--var", "parallel=1", "--var", "output=imported.csv",
            ], world: world, tag: "run")
        let deadline = Date().addingTimeInterval(60)
        var open = false
        while Date() < deadline, runner.isRunning, !open {
            let steps = try BuiltBinary.run(
                ["-c", "psql '\(store)' -At -c \"SELECT count(*) FROM walletops.step_chunking\""],
                executable: "/bin/sh")
            open = steps.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
            if !open { usleep(20_000) }
        }
        #expect(open, "the run shared its step: \(world.read(runLog.lastPathComponent))")
        // The worker's host has other bytes at the run's path (the run has read its rows already, or reads
        // them from the lines it kept: the changed file has one more row at the end).
        let original = try Data(contentsOf: file)
        try Data((keys + String(repeating: "1", count: 64) + "\n").utf8).write(to: file)
        let worker = try BuiltBinary.run(
            [
                "worker", "--home", world.home.path, "--core", world.core, "--store", store, "--poll", "50ms",
                "--idle-exit", "1s", "--max-runs", "1",
            ], directory: world.scratch)
        try original.write(to: file)
        runner.waitUntilExit()
        #expect(worker.status == 65, "\(worker)")
        #expect(
            worker.standardError.contains(
                "input 'import.input' (\(file.path)) is not the file run 1 was started with"), "\(worker)")
        #expect(worker.standardError.contains("not claiming anything of run 1"), "\(worker)")
        let owners = try BuiltBinary.run(
            ["-c", "psql '\(store)' -At -c \"SELECT DISTINCT owner FROM walletops.chunk_leases\""],
            executable: "/bin/sh")
        #expect(owners.standardOutput.split(separator: "\n").count == 1, "only the run claimed: \(owners)")
        #expect(runner.terminationStatus == 0, "\(world.read(runLog.lastPathComponent))")
        #expect(JobsEndToEndTests.parseCSV(world.read("imported.csv")).count == 5_000)
        // No key entered the shared store: every row of every table of its schema, as text.
        let dump = try BuiltBinary.run(
            [
                "-c",
                "for t in $(psql '\(store)' -At -c \"SELECT table_name FROM information_schema.tables "
                    + "WHERE table_schema = 'walletops'\"); do psql '\(store)' -At -c \"SELECT t::text FROM "
                    + "walletops.$t t\"; done",
            ], executable: "/bin/sh")
        #expect(dump.standardOutput.contains("import-keys"), "the dump has the run's rows")
        let leaked = keys.split(separator: "\n").dropFirst().filter { dump.standardOutput.contains($0) }
        #expect(leaked.isEmpty, "\(leaked.count) keys are in the run store")
    }
}

extension WorkerEndToEndTests {
    @Test func aWorkerNeedsASharedStore() throws {
        let home = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "WALLETOPS_RUN_STORE")
        let result = try BuiltBinary.run(
            ["worker", "--home", home.path, "--idle-exit", "1s"], environment: environment)
        #expect(result.status == 64, "\(result)")
        #expect(result.standardError.contains("walletops worker needs a shared run store"), "\(result)")
    }
}
