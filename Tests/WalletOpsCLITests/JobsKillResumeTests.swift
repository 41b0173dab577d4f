import Foundation
import TestSupport
import Testing

/// A large import SIGKILLed twice mid-run and resumed: exactly one wallet per row, no duplicate address,
/// the output holding each row once.
///
/// 20,000 rows by default (about 23 minutes in a debug build on two busy cores); set
/// `WALLETOPS_KILL_TEST_ROWS` to run it smaller.
///
/// Opt-in for now (`WALLETOPS_JOBS_KILL_TEST=1`): after the faster import landed, the second kill no longer
/// lands mid-run (the test watches progress through `wallet list`, refused while the job holds the same
/// credential's nonces), so the kill-timing checks fail while every end-state check passes. Issue 8 stays
/// open until the test kills on the job's own progress output and runs in CI.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["WALLETOPS_JOBS_KILL_TEST"] == "1"))
struct JobsKillResumeTests {
    static var rows: Int {
        Int(ProcessInfo.processInfo.environment["WALLETOPS_KILL_TEST_ROWS"] ?? "") ?? 20_000
    }

    @Test(.timeLimit(.minutes(60))) func importKilledTwiceAndResumed() throws {
        let count = Self.rows
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        var text = "private_key\n"
        text.reserveCapacity(count * 66)
        var keys: [String] = []
        var state: UInt64 = 0x5eed_1234
        for _ in 1...count {
            // Distinct valid scalars from SplitMix64: the top byte kept below 0xff so the key is below n.
            var bytes: [UInt8] = []
            for _ in 0..<4 {
                state &+= 0x9e37_79b9_7f4a_7c15
                var z = state
                z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
                z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
                z ^= z >> 31
                for shift in stride(from: 56, through: 0, by: -8) {
                    bytes.append(UInt8(truncatingIfNeeded: z >> UInt64(shift)))
                }
            }
            bytes[0] = bytes[0] % 0xfe + 1
            let key = Hex.encode(bytes)
            keys.append(key)
            text += key + "\n"
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: world.path("keys.csv")))
        let arguments = [
            "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/import-keys.yaml").path, "--home",
            world.home.path, "--var", "input=\(world.path("keys.csv"))", "--var", "format=hex-csv", "--var",
            "output=\(world.path("out.csv"))", "--var", "rejects=\(world.path("rejects.csv"))", "--var", "core=",
        ]

        for (round, fraction) in [(1, 3), (2, 3)] {
            let process = Process()
            process.executableURL = try BuiltBinary.url()
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.currentDirectoryURL = world.scratch
            try process.run()
            let target = count * round / fraction
            var seen = 0
            while process.isRunning {
                seen = walletCount(world)
                if seen >= target { break }
                usleep(200_000)
            }
            #expect(process.isRunning, "round \(round): the run ended before it could be killed (\(seen) wallets)")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(!FileManager.default.fileExists(atPath: world.path("out.csv")), "no output before the end")
        }

        let final = try BuiltBinary.run(arguments, directory: world.scratch)
        #expect(final.status == 0, "\(final)")
        let rows = JobsEndToEndTests.parseCSV(world.read("out.csv"))
        #expect(rows.count == count)
        #expect(Set(rows.map { $0["source"]! }).count == count, "each row once")
        #expect(Set(rows.map { $0["address"]!.lowercased() }).count == count, "no duplicate address")
        #expect(walletCount(world) == count, "exactly one wallet per row")
        #expect(JobsEndToEndTests.parseCSV(world.read("rejects.csv")).isEmpty)
        // A sample of keys never reached the home or the outputs.
        try JobsEndToEndTests.expectNoSecrets(
            keys: Array(keys.prefix(20)) + Array(keys.suffix(20)), passwords: [], in: [world.home],
            outputs: [final])
    }

    /// The home's wallet count. The running import signs with the same credential, so a listing can be
    /// refused for a stale nonce (nothing happens): it is asked again, and -1 means "not known now".
    func walletCount(_ world: JobsEndToEndTests.JobsWorld) -> Int {
        for _ in 0..<10 {
            if let list = try? BuiltBinary.run(["wallet", "list", "--home", world.home.path]), list.status == 0 {
                return list.standardOutput.split(separator: "\n").filter { $0.contains("wal_") }.count
            }
            usleep(50_000)
        }
        return -1
    }
}
