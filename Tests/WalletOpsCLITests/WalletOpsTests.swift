import Foundation
import Testing

@testable import WalletOpsCLI

/// The real command tree, run in-process with captured output.
@Suite struct WalletOpsTests {
    @Test func versionCommandAndFlagAgree() async {
        let command = await runInProcess(["version"])
        let flag = await runInProcess(["--version"])
        #expect(command.status == 0 && flag.status == 0)
        #expect(command.standardOutput == "walletops \(WalletOps.version)\n")
        #expect(flag.standardOutput == command.standardOutput)
    }

    @Test func noArgumentsIsAUsageError() async {
        let result = await runInProcess([])
        #expect(result.status == 64)
        #expect(
            result.standardError == """
                Error: missing subcommand; expected one of: core, login, logout, wallet, access, remote, token, jwks, \
                crypto, version, completion, run, validate, plan, runs, status, failures, retry, prune, due, worker, help
                Usage: walletops <subcommand>
                See 'walletops --help' for more.

                """)
    }

    @Test func cryptoAddressReadsStandardInputInProcess() async throws {
        let vector = try #require(try EthereumKeyVectors.load().first)
        let result = await runInProcess(
            ["crypto", "address", "-t", "ethereum", "-k", "-"], standardInput: Array(" 0x\(vector.key) \n".utf8))
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.lowercased() == "0x\(vector.address)\n")
    }

    @Test func cryptoAddressResolvesRelativePathsInTheContextDirectory() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let vector = try #require(try Ed25519Vectors.load().last)
        try Data(vector.seed).write(to: directory.appendingPathComponent("seed.bin"))
        let result = await runInProcess(
            ["crypto", "address", "--type", "solana", "--key-file", "seed.bin"], currentDirectory: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput == ReferenceBase58.encode(vector.publicKey) + "\n")
    }
}
