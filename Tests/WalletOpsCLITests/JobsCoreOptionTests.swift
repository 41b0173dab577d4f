import Foundation
import TestSupport
import Testing

/// `walletops run|retry --core URL` reaches the job actions, before `--var core=URL` and before
/// `$WALLETOPS_CORE` (docs/jobs.md), against a real `walletops core serve` on loopback.
@Suite(.serialized) struct JobsCoreOptionTests {
    /// A core nobody signed in to: a job pointed at it fails before sending anything.
    static let elsewhere = "http://127.0.0.1:9"

    static func createWallets(
        _ world: JobsEndToEndTests.JobsWorld, output: String, _ extra: [String], environment: [String: String] = [:]
    ) throws -> CLIResult {
        let playbook = Fixtures.repositoryRoot.appendingPathComponent("jobs/create-wallets.yaml").path
        return try BuiltBinary.run(
            [
                "run", playbook, "--home", world.home.path, "--fresh", "--var", "count=2", "--var",
                "reference_prefix=opt", "--var", "output=\(world.path(output))",
            ] + extra, environment: environment, directory: world.scratch)
    }

    /// The run report named on the `report:` line of a run's output (the items' errors are there).
    static func report(_ result: CLIResult) -> String {
        let line = result.standardOutput.split(separator: "\n").first { $0.hasPrefix("report: ") }
        return line.flatMap { try? String(contentsOfFile: String($0.dropFirst("report: ".count)), encoding: .utf8) }
            ?? ""
    }

    @Test func precedenceOfCoreOptionVarAndEnvironment() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: true)
        let served = world.core

        // --core beats both a --var core and $WALLETOPS_CORE that name another core.
        let option = try Self.createWallets(
            world, output: "option.csv", ["--core", served, "--var", "core=\(Self.elsewhere)"],
            environment: ["WALLETOPS_CORE": Self.elsewhere])
        #expect(option.status == 0, "\(option)")
        let wallets = world.rows("option.csv")
        #expect(wallets.map { $0["reference"]! } == ["opt-1", "opt-2"])

        // --var core beats $WALLETOPS_CORE; the environment alone works too. Same wallets: same core.
        let variable = try Self.createWallets(
            world, output: "var.csv", ["--var", "core=\(served)"], environment: ["WALLETOPS_CORE": Self.elsewhere])
        #expect(variable.status == 0, "\(variable)")
        let environment = try Self.createWallets(
            world, output: "env.csv", [], environment: ["WALLETOPS_CORE": served])
        #expect(environment.status == 0, "\(environment)")
        #expect(world.rows("var.csv") == wallets)
        #expect(world.rows("env.csv") == wallets)

        // The losing values are really read: alone, each one fails, naming the core it was given.
        let wrongVar = try Self.createWallets(world, output: "wrong.csv", ["--var", "core=\(Self.elsewhere)"])
        // Not signed in to that core: the run stops at its first request (exit 1, sign in again).
        #expect(wrongVar.status == 1, "\(wrongVar)")
        #expect(Self.report(wrongVar).contains("not signed in to \(Self.elsewhere)"), "\(Self.report(wrongVar))")
        let wrongOption = try Self.createWallets(
            world, output: "wrong2.csv", ["--core", Self.elsewhere], environment: ["WALLETOPS_CORE": served])
        #expect(wrongOption.status == 1, "\(wrongOption)")
        #expect(Self.report(wrongOption).contains("not signed in to \(Self.elsewhere)"))
        #expect(!FileManager.default.fileExists(atPath: world.path("wrong2.csv")))

        // Not an http(s) URL: a usage error before anything runs.
        let bad = try Self.createWallets(world, output: "bad.csv", ["--core", "ftp://127.0.0.1:1"])
        #expect(bad.status == 64, "\(bad)")
    }

    @Test func retryTakesTheCoreOption() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: true)
        // Started against a core the home is not signed in to: the run stops at its first request.
        let failed = try Self.createWallets(world, output: "retry.csv", ["--core", Self.elsewhere])
        #expect(failed.status == 1, "\(failed)")
        let runs = try BuiltBinary.run(["runs", "--home", world.home.path, "--format", "json"])
        #expect(runs.status == 0, "\(runs)")
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(runs.standardOutput.utf8)) as? [[String: Any]])
        let id = try #require(list.first?["id"] as? Int)

        // retry without --core keeps the run's core (and fails again); with --core it reaches the served one.
        let again = try BuiltBinary.run(["retry", String(id), "--home", world.home.path], directory: world.scratch)
        #expect(again.status == 1, "\(again)")
        #expect(
            again.standardError.contains("walletops retry \(id) --home \(world.home.path) --core \(Self.elsewhere)"))
        #expect(Self.report(again).contains("not signed in to \(Self.elsewhere)"))
        let retried = try BuiltBinary.run(
            ["retry", String(id), "--home", world.home.path, "--core", world.core], directory: world.scratch)
        #expect(retried.status == 0, "\(retried)")
        #expect(world.rows("retry.csv").map { $0["reference"]! } == ["opt-1", "opt-2"])
    }

    @Test func dueRunsTheScheduledJobsAgainstTheCoreOption() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: true)
        let folder = world.scratch.appendingPathComponent("playbooks")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Fixtures.repositoryRoot.appendingPathComponent("jobs/revoke-sweep.yaml"),
            to: folder.appendingPathComponent("revoke-sweep.yaml"))
        // A wallet, so the sweep has grants to walk.
        let wallet = try BuiltBinary.run(["wallet", "create", "--home", world.home.path, "--core", world.core])
        #expect(wallet.status == 0, "\(wallet)")
        // The sweep is scheduled at 03:15: due when checked at 03:15:30 (first check: one minute back).
        let due = try BuiltBinary.run(
            ["due", folder.path, "--home", world.home.path, "--core", world.core, "--now", "2026-11-30T03:15:30Z"],
            directory: world.scratch)
        #expect(due.status == 0, "\(due)")
        // The output var's default, sweep.csv, is relative (to the run's directory or the playbook's).
        let written = try #require(
            [world.scratch, folder].map { $0.appendingPathComponent("sweep.csv").path }.first {
                FileManager.default.fileExists(atPath: $0)
            }, "\(due)")
        // Default selection (expired): nothing to revoke on a new account, but the sweep listed its grants.
        let text = try String(contentsOfFile: written, encoding: .utf8)
        #expect(text == "wallet_id,credential_id,session_id,type,app_name,expires_at,reason,result\r\n", "\(text)")
        // The next day, without --core: the embedded core, where this home is not signed in.
        let embedded = try BuiltBinary.run(
            ["due", folder.path, "--home", world.home.path, "--now", "2026-12-01T03:15:30Z"], directory: world.scratch)
        #expect(embedded.status != 0, "\(embedded)")
    }
}
