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
    /// The stop's message: when the session ended, how to sign in, and the command that resumes.
    static func expectStopNotice(_ result: CLIResult, run: Int) {
        #expect(result.status == 1, "\(result)")
        #expect(result.standardError.contains("Error: session expired at "), "\(result.standardError)")
        #expect(result.standardError.contains(": sign in again: run 'walletops login"), "\(result.standardError)")
        #expect(
            result.standardError.contains(
                "run \(run) stopped with its checkpoints saved. Once signed in, resume with:"),
            "\(result.standardError)")
        #expect(result.standardOutput.contains("interrupted"), "\(result.standardOutput)")
        #expect(
            !result.standardError.contains("failed: step"), "no row failed for the session: \(result.standardError)")
    }

    @Test func aSessionExpiredBeforeTheRunStopsItAtOnceAndTheRunResumesAfterLogin() throws {
        // Shorter than the 30 s of skew: over for the CLI from the start.
        let space = try PlaybookWorkspace.signedIn(lifetime: 20)
        try space.writeImportKeys("keys.csv", count: 5)
        let commands = [
            PlaybookWorkspace.importCommand(input: "keys.csv", output: "imported.csv"),
            PlaybookWorkspace.shipped("revoke-sweep", ["output": "sweep.csv"]),
        ]
        for (index, command) in commands.enumerated() {
            let refused = try space.run(command)
            Self.expectStopNotice(refused, run: index + 1)
            // The first step's row of the summary: interrupted, no row succeeded, failed, rejected or skipped.
            let first = refused.standardOutput.split(separator: "\n").dropFirst(2).first?.split(separator: " ")
            #expect(first?[1] == "interrupted" && first?.suffix(4) == ["0", "0", "0", "0"], "nothing done: \(refused)")
        }
        #expect(space.csvRows("imported.csv").isEmpty, "no key was sent")
        try space.signIn()
        for (index, command) in commands.enumerated() {
            let resumed = try space.run(command)
            #expect(resumed.status == 0, "\(resumed)")
            #expect(resumed.standardError.contains("resuming run \(index + 1)"), "\(resumed)")
        }
        #expect(space.csvRows("imported.csv").count == 5)
    }

    @Test func aSessionThatExpiresDuringTheRunStopsItKeepingWhatWasDoneAndLoginResumesIt() throws {
        // 45 s: over for the CLI 15 s after the login, while the import runs (held there by SIGSTOP).
        let space = try PlaybookWorkspace.signedIn(lifetime: 45)
        let credential = try #require(
            try PlaybookWorkspace.json(space.read("home/credential.json")) as? [String: Any])
        let expiry = try #require(credential["expiresAt"] as? String)
        let expiresAt = try #require(ISO8601DateFormatter().date(from: expiry))
        let rows = 3_000
        try space.writeImportKeys("keys.csv", count: rows)
        let command = PlaybookWorkspace.importCommand(
            input: "keys.csv", output: "imported.csv", ["batch": "10", "parallel": "1"])
        let run = try space.start(command + ["--progress-interval", "100ms"], tag: "first")
        defer { if run.isRunning { kill(run.processIdentifier, SIGKILL) } }
        let imported = { space.csvRows("imported.csv").count }
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

        try space.signIn()
        let resumed = try space.run(command)
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.standardError.contains("resuming run 1"), "\(resumed)")
        let sources = space.csvRows("imported.csv").map { $0["source"] ?? "" }
        #expect(sources.count == rows && Set(sources).count == rows, "every key once: \(sources.count)")
    }
}
