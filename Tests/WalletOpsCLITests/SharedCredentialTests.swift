import Foundation
import TestSupport
import Testing

/// One stored credential used by two processes at once: a job creating wallets and `walletops wallet
/// list` beside it. Their nonces interleave at the core; a request that arrives behind the other
/// process's is refused as stale (7206) and the client sends it again with a fresh nonce, so neither
/// process fails. One reference per request gives 1,500 signed requests, so the job outlasts a few
/// `wallet list` launches even on a fast machine (300 references in one request once finished first).
@Suite(.serialized) struct SharedCredentialTests {
    @Test(arguments: [false, true]) func aJobAndWalletListShareOneCredential(served: Bool) throws {
        let world = try JobsEndToEndTests.JobsWorld(served: served)
        let log = URL(fileURLWithPath: world.path("job.log"))
        try Data().write(to: log)
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        let job = Process()
        job.executableURL = try BuiltBinary.url()
        job.arguments =
            [
                "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/create-wallets.yaml").path, "--home",
                world.home.path, "--var", "count=1500", "--var", "batch=1", "--var", "parallel=8", "--var",
                "output=\(world.path("w.csv"))",
            ] + (served ? ["--core", world.core] : [])
        job.standardOutput = output
        job.standardError = output
        job.standardInput = FileHandle.nullDevice
        job.currentDirectoryURL = world.scratch
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "WALLETOPS_HOME")
        environment.removeValue(forKey: "WALLETOPS_CORE")
        job.environment = environment
        try job.run()

        var lists = 0
        var overlapped = 0
        while job.isRunning || lists < 3 {
            let wasRunning = job.isRunning
            let list = try BuiltBinary.run(
                ["wallet", "list", "--home", world.home.path, "--format", "csv"]
                    + (served ? ["--core", world.core] : []))
            #expect(list.status == 0, "wallet list beside the job: \(list)")
            if wasRunning && job.isRunning { overlapped += 1 }
            lists += 1
        }
        job.waitUntilExit()
        let jobLog = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(job.terminationStatus == 0, "the job: \(jobLog)")
        #expect(world.rows("w.csv").count == 1500)
        #expect(overlapped >= 1, "wallet list ran \(lists) times, \(overlapped) of them while the job ran")
        print(
            "SharedCredentialTests[\(served ? "served" : "embedded")]: \(lists) listings, \(overlapped) during the job")
    }
}
