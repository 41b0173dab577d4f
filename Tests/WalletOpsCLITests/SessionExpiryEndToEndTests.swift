import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A run whose session is expired, or expires while it runs (issue 25), through the built binary and the
/// shipped playbooks: it stops at once (no row fails for it), says when the session ended and how to sign
/// in again, exits 1 (a refusal: retrying later without signing in would be refused alike), and keeps
/// what it did; after `walletops login` the same command resumes the run and finishes it.
@Suite(.serialized) struct SessionExpiryEndToEndTests {
    /// A workspace whose home has a core, signed in as ops@example.com for `lifetime` seconds.
    static func signedInSpace(lifetime: Int? = nil) throws -> PlaybookWorkspace {
        let space = try PlaybookWorkspace()
        let initialized = try space.run(["core", "init"])
        try #require(initialized.status == 0, "\(initialized)")
        try signIn(space, lifetime: lifetime)
        return space
    }

    static func signIn(_ space: PlaybookWorkspace, lifetime: Int? = nil) throws {
        let login = try space.run(
            ["login", "--dev", "--email", "ops@example.com"] + (lifetime.map { ["--lifetime", "\($0)"] } ?? []))
        try #require(login.status == 0, "\(login)")
    }

    /// `count` distinct valid Ethereum keys (the scalars 1 to count) as an import CSV.
    static func writeKeys(_ space: PlaybookWorkspace, _ name: String, count: Int, from first: Int = 1) throws {
        try space.write(
            name, "private_key\n" + (first..<(first + count)).map { String(format: "%064x", $0) }.joined(separator: "\n") + "\n")
    }

    static func importCommand(_ space: PlaybookWorkspace, input: String, output: String, extra: [String] = [])
        -> [String]
    {
        [
            "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/import-keys.yaml").path, "--var",
            "input=\(input)", "--var", "format=hex-csv", "--var", "output=\(output)", "--var",
            "rejects=\(output).rejects",
        ] + extra
    }

    /// The stop's message: when the session ended, how to sign in, and the command that resumes.
    static func expectStopNotice(_ result: CLIResult, run: Int) {
        #expect(result.status == 1, "\(result)")
        #expect(result.standardError.contains("Error: session expired at "), "\(result.standardError)")
        #expect(result.standardError.contains(": sign in again: run 'walletops login"), "\(result.standardError)")
        #expect(
            result.standardError.contains("run \(run) stopped with its checkpoints saved. Once signed in, resume with:"),
            "\(result.standardError)")
        #expect(result.standardOutput.contains("interrupted"), "\(result.standardOutput)")
        #expect(!result.standardError.contains("failed: step"), "no row failed for the session: \(result.standardError)")
    }

    @Test func aSessionExpiredBeforeTheRunStopsItAtOnceAndTheRunResumesAfterLogin() throws {
        // Shorter than the 30 s of skew: over for the CLI from the start.
        let space = try Self.signedInSpace(lifetime: 20)
        try Self.writeKeys(space, "keys.csv", count: 5)
        let sweep = [
            "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/revoke-sweep.yaml").path, "--var",
            "output=sweep.csv",
        ]
        let commands = [Self.importCommand(space, input: "keys.csv", output: "imported.csv"), sweep]
        for (index, command) in commands.enumerated() {
            let refused = try space.run(command)
            Self.expectStopNotice(refused, run: index + 1)
            #expect(refused.standardOutput.contains("  0  0  0  0"), "nothing done, nothing failed: \(refused)")
        }
        #expect(JobsEndToEndTests.parseCSV(space.read("imported.csv")).isEmpty, "no key was sent")
        try Self.signIn(space)
        for (index, command) in commands.enumerated() {
            let resumed = try space.run(command)
            #expect(resumed.status == 0, "\(resumed)")
            #expect(resumed.standardError.contains("resuming run \(index + 1)"), "\(resumed)")
        }
        #expect(JobsEndToEndTests.parseCSV(space.read("imported.csv")).count == 5)
    }

    @Test func aSessionThatExpiresDuringTheRunStopsItKeepingWhatWasDoneAndLoginResumesIt() throws {
        // 40 s: over for the CLI 10 s after the login, while the import runs (held there by SIGSTOP).
        let space = try Self.signedInSpace(lifetime: 40)
        let credential = try #require(
            try PlaybookWorkspace.json(space.read("home/credential.json")) as? [String: Any])
        let expiresAt = try #require(
            ISO8601DateFormatter().date(from: try #require(credential["expiresAt"] as? String)))
        let rows = 3_000
        try Self.writeKeys(space, "keys.csv", count: rows)
        let command = Self.importCommand(
            space, input: "keys.csv", output: "imported.csv", extra: ["--var", "batch=10", "--var", "parallel=1"])
        let run = try space.start(command + ["--progress-interval", "100ms"], tag: "first")
        defer { if run.isRunning { kill(run.processIdentifier, SIGKILL) } }
        let imported = { JobsEndToEndTests.parseCSV(space.read("imported.csv")).count }
        #expect(space.wait(seconds: 60) { imported() >= 30 || !run.isRunning })
        try #require(run.isRunning, "the run ended before the session did: \(space.read("first.err"))")
        kill(run.processIdentifier, SIGSTOP)
        let before = imported()
        // Held until the session is over for the CLI (30 s before its expiry), then let go.
        let over = expiresAt.addingTimeInterval(-29)
        while Date() < over { usleep(100_000) }
        kill(run.processIdentifier, SIGCONT)
        run.waitUntilExit()
        let stopped = CLIResult(
            status: run.terminationStatus, standardOutput: space.read("first.out"),
            standardError: space.read("first.err"))
        Self.expectStopNotice(stopped, run: 1)
        let kept = imported()
        #expect(kept >= before && kept < rows, "stopped at its next request: \(before) then \(kept) of \(rows)")
        let status = try space.run(["status", "1", "--format", "json"])
        #expect(status.standardOutput.contains(#""status":"interrupted""#), "\(status)")

        try Self.signIn(space)
        let resumed = try space.run(command)
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.standardError.contains("resuming run 1"), "\(resumed)")
        let sources = JobsEndToEndTests.parseCSV(space.read("imported.csv")).map { $0["source"] ?? "" }
        #expect(sources.count == rows && Set(sources).count == rows, "every key once: \(sources.count)")
    }
}
