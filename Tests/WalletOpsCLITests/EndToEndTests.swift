import Foundation
import TestSupport
import Testing
import WalletCrypto

/// Runs the built `walletops` executable as a child process.
///
/// The test target does not depend on the executable; `swift build --build-tests` and `swift test`
/// build every target, so it is there (`make test` runs both). The binary is looked up next to the
/// test bundle, then in `.build/debug`; `WALLETOPS_BINARY` overrides both.
enum BuiltBinary {
    static func url() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let override = environment["WALLETOPS_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var candidates = [testBinary.deletingLastPathComponent()]
        // macOS: <build>/walletopsPackageTests.xctest/Contents/MacOS/walletopsPackageTests
        candidates.append(
            testBinary.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(Fixtures.repositoryRoot.appendingPathComponent(".build/debug"))
        for folder in candidates {
            let binary = folder.appendingPathComponent("walletops")
            if FileManager.default.isExecutableFile(atPath: binary.path) {
                try checkFresh(binary)
                return binary
            }
        }
        throw TestFailure(
            "walletops executable not found next to \(testBinary.path) nor in .build/debug; "
                + "run `swift build --build-tests` first (make test does), or set WALLETOPS_BINARY")
    }

    /// An executable older than the WalletOpsCLI objects the tests link (a build that stopped
    /// half-way, a `swift build --target`) would test yesterday's code: fail and say so.
    static func checkFresh(_ binary: URL) throws {
        let objects = binary.deletingLastPathComponent().appendingPathComponent("WalletOpsCLI.build")
        let files = (try? FileManager.default.contentsOfDirectory(at: objects, includingPropertiesForKeys: nil)) ?? []
        func modified(_ url: URL) -> Date {
            ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date) ?? .distantPast
        }
        let newest = files.filter { $0.pathExtension == "o" }.map(modified).max() ?? .distantPast
        if newest > modified(binary) {
            throw TestFailure(
                "\(binary.path) is older than the WalletOpsCLI objects it links; "
                    + "run `swift build --build-tests` before `swift test` (make test does)")
        }
    }

    /// Runs the binary with `arguments` and `standardInput`, in `directory`; with `replacingEnvironment`,
    /// that is the child's whole environment (as cron gives a job), else `environment` is added to the
    /// test's own.
    static func run(
        _ arguments: [String], standardInput: [UInt8] = [], environment: [String: String] = [:],
        directory: URL? = nil, executable: String? = nil, replacingEnvironment: [String: String]? = nil
    ) throws -> CLIResult {
        let scratch = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputURL = scratch.appendingPathComponent("stdin")
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        try Data(standardInput).write(to: inputURL)
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        // Files rather than pipes: no deadlock however much the child writes.
        let input = try FileHandle(forReadingFrom: inputURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? input.close()
            try? output.close()
            try? error.close()
        }
        let process = Process()
        process.executableURL = try executable.map { URL(fileURLWithPath: $0) } ?? url()
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        process.currentDirectoryURL = directory ?? scratch
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment.removeValue(forKey: "WALLETOPS_HOME")
        for (name, value) in environment { childEnvironment[name] = value }
        process.environment = replacingEnvironment ?? childEnvironment
        try process.run()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
    }
}

@Suite(.serialized) struct EndToEndTests {
    @Test func help() throws {
        let result = try BuiltBinary.run(["--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardError == "")
        #expect(result.standardOutput.hasPrefix("OVERVIEW: "))
        #expect(result.standardOutput.contains("USAGE: walletops <subcommand>\n"))
        #expect(result.standardOutput.contains("\n  crypto "))
        #expect(result.standardOutput.contains("\n  version "))
        #expect(result.standardOutput.contains("\n  help "))
    }

    @Test func helpForASubcommand() throws {
        for arguments in [
            ["help", "crypto", "address"], ["crypto", "address", "--help"], ["crypto", "address", "-h"],
        ] {
            let result = try BuiltBinary.run(arguments)
            #expect(result.status == 0, "\(result)")
            #expect(result.standardError == "")
            #expect(result.standardOutput.hasPrefix("OVERVIEW: Print the address of a private key"))
            #expect(result.standardOutput.contains("USAGE: walletops crypto address --type <type> --key-file <file>\n"))
            #expect(
                result.standardOutput.contains(
                    "  -t, --type <type>         The kind of key. (values: ethereum, solana)\n"))
        }
    }

    @Test func version() throws {
        for arguments in [["--version"], ["version"]] {
            let result = try BuiltBinary.run(arguments)
            #expect(result.status == 0)
            #expect(result.standardOutput == "walletops 0.1.0\n")
            #expect(result.standardError == "")
        }
    }

    @Test func unknownSubcommand() throws {
        let result = try BuiltBinary.run(["crypt", "address"])
        #expect(result.status == 64)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError == """
                Error: unknown subcommand 'crypt'; did you mean 'crypto'?
                Usage: walletops <subcommand>
                See 'walletops --help' for more.

                """)
    }

    @Test func usageErrorsExit64() throws {
        let cases: [([String], String)] = [
            (
                ["crypto", "address", "--type", "ethereum", "--key-file"],
                "Error: missing value for option '--key-file <file>'\n"
            ),
            (
                ["crypto", "address", "--type", "bitcoin", "--key-file", "k"],
                "Error: invalid value 'bitcoin' for '--type <type>': expected one of: ethereum, solana\n"
            ),
            (["crypto", "address", "--key-file", "k"], "Error: missing required option '--type <type>'\n"),
            (
                ["crypto", "address", "--tpye", "solana", "--key-file", "k"],
                "Error: unknown option '--tpye'; did you mean '--type'?\n"
            ),
        ]
        for (arguments, firstLine) in cases {
            let result = try BuiltBinary.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardOutput == "")
            #expect(
                result.standardError
                    == firstLine
                    + "Usage: walletops crypto address --type <type> --key-file <file>\n"
                    + "See 'walletops crypto address --help' for more.\n")
        }
    }

    @Test func ethereumAddressOfAKnownKey() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var tally = VectorTally("KeyStoreTests basic_tests.json + geth v1 via the binary")
        for vector in try EthereumKeyVectors.load() {
            try Data("0x\(vector.key)\n".utf8).write(to: directory.appendingPathComponent("eth.key"))
            let result = try BuiltBinary.run(
                ["crypto", "address", "--type", "ethereum", "--key-file", "eth.key"], directory: directory)
            #expect(result.status == 0, "\(result)")
            #expect(result.standardError == "")
            let printed = result.standardOutput.trimmingCharacters(in: .newlines)
            #expect(result.standardOutput == printed + "\n")
            #expect(printed.lowercased() == "0x" + vector.address, "\(vector.name)")
            #expect(printed != printed.lowercased(), "not EIP-55 mixed case")
            #expect(throws: Never.self) { try EthereumAddress(printed, strict: true) }  // checksum holds
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 2)
    }

    @Test func solanaAddressOfRFC8032Seeds() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var tally = VectorTally("ed25519_rfc8032.json via the binary")
        for vector in try Ed25519Vectors.load() {
            let file = directory.appendingPathComponent("sol.key")
            try Data((ReferenceBase58.encode(vector.seed) + "\n").utf8).write(to: file)
            let result = try BuiltBinary.run(["crypto", "address", "-t", "solana", "-k", file.path])
            #expect(result.status == 0, "\(result)")
            #expect(result.standardOutput == ReferenceBase58.encode(vector.publicKey) + "\n", "\(vector.name)")
            #expect(result.standardError == "")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 5)
    }

    @Test func keyFromStandardInput() throws {
        let vector = try #require(try EthereumKeyVectors.load().first)
        let ethereum = try BuiltBinary.run(
            ["crypto", "address", "--type=ethereum", "--key-file=-"], standardInput: Array("\(vector.key)\n".utf8))
        #expect(ethereum.status == 0, "\(ethereum)")
        #expect(ethereum.standardOutput.lowercased() == "0x\(vector.address)\n")

        let seed = try #require(try Ed25519Vectors.load().first)
        let keypair = seed.seed + seed.publicKey
        let json = "[" + keypair.map(String.init).joined(separator: ",") + "]"
        let solana = try BuiltBinary.run(
            ["crypto", "address", "--type", "solana", "--key-file", "-"], standardInput: Array(json.utf8))
        #expect(solana.status == 0, "\(solana)")
        #expect(solana.standardOutput == ReferenceBase58.encode(seed.publicKey) + "\n")
    }

    @Test func badKeyFileIsReportedWithoutTheKey() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let vector = try #require(try EthereumKeyVectors.load().first)
        let truncated = String(vector.key.dropLast())
        try Data("\(truncated)\n".utf8).write(to: directory.appendingPathComponent("bad.key"))
        let result = try BuiltBinary.run(
            ["crypto", "address", "--type", "ethereum", "--key-file", "bad.key"], directory: directory)
        #expect(result.status == 65)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError
                == "Error: key file bad.key: expected 64 hex digits (optionally after 0x), found 63 characters\n"
        )
        for start in stride(from: 0, to: truncated.count - 8, by: 8) {
            let piece = truncated.dropFirst(start).prefix(8)
            #expect(!result.standardError.lowercased().contains(piece))
        }
        let missing = try BuiltBinary.run(
            ["crypto", "address", "--type", "solana", "--key-file", "absent.key"], directory: directory)
        #expect(missing.status == 74)
        #expect(missing.standardError == "Error: key file absent.key: cannot open: No such file or directory\n")
    }

    @Test func keyOnTheCommandLineIsRefused() throws {
        let vector = try #require(try EthereumKeyVectors.load().first)
        let seed = try #require(try Ed25519Vectors.load().first)
        let cases: [[String]] = [
            ["crypto", "address", "--type", "ethereum", "--key-file", vector.key],
            ["crypto", "address", "--type", "ethereum", "--key-file=0x\(vector.key)"],
            ["crypto", "address", "--type", "ethereum", "0x\(vector.key)"],
            ["crypto", "address", "--type", "solana", "--key-file", ReferenceBase58.encode(seed.seed)],
            ["crypto", "address", "--type", "solana", "--key", ReferenceBase58.encode(seed.seed + seed.publicKey)],
        ]
        for arguments in cases {
            let result = try BuiltBinary.run(arguments)
            #expect(result.status == 64, "\(result)")
            #expect(result.standardOutput == "")
            #expect(result.standardError.contains("looks like a private key"))
            #expect(result.standardError.contains("shell history"))
            #expect(result.standardError.contains("See 'walletops crypto address --help' for more."))
            #expect(!result.standardError.lowercased().contains(vector.key.prefix(16)))
            #expect(!result.standardError.contains(ReferenceBase58.encode(seed.seed).prefix(16)))
        }
    }
}
