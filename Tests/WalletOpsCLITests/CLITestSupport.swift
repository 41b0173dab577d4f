import Foundation
import Synchronization
import Testing

@testable import WalletOpsCLI

/// What a command line produced.
struct CLIResult: Sendable, CustomStringConvertible {
    let status: Int32
    let standardOutput: String
    let standardError: String

    var description: String { "exit \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)" }
}

/// A command that prints what it parsed, for parser tests.
struct EchoCommand: Command {
    let configuration: CommandConfiguration
    var result: @Sendable (ParsedArguments, Context) throws -> Int32 = { _, _ in 0 }

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        context.standardOutput.writeLine("ran \(arguments.commandPath.joined(separator: " "))")
        return try result(arguments, context)
    }
}

/// A small command tree with every kind of option and argument.
enum TestTree {
    static let name = OptionSpec.option("name", short: "n", help: "A name.", required: true)
    static let variable = OptionSpec.option(
        "var", valueName: "key=value", help: "A template variable.", type: .keyValue, repeating: true)
    static let claim = OptionSpec.option(
        "claim", valueName: "key=value", help: "A claim.", type: .keyValue, repeating: true)
    static let concurrency = OptionSpec.option(
        "concurrency", short: "c", valueName: "n", help: "Parallel items.", type: .integer(min: 1, max: 64),
        default: "4")
    static let offset = OptionSpec.option("offset", valueName: "n", help: "An offset.", type: .integer())
    static let format = OptionSpec.option(
        "format", help: "Output format.", type: .choice(["text", "json"]), default: "text")
    static let verbose = OptionSpec.flag("verbose", short: "v", help: "More output.")
    static let quiet = OptionSpec.flag("quiet", short: "q", help: "Less output.")
    static let address = OptionSpec.option(
        "to", valueName: "address", help: "A public address.", acceptsKeyLikeValues: true)
    static let playbook = ArgumentSpec("playbook", help: "The playbook file.")
    static let inputs = ArgumentSpec("inputs", help: "Input files.", optional: true, repeating: true)

    static let run = EchoCommand(
        configuration: CommandConfiguration(
            name: "run", abstract: "Run a playbook.", discussion: "Runs it.",
            options: [name, variable, claim, concurrency, offset, format, verbose, quiet, address]
                + CommonOptions.operatorOptions,
            arguments: [playbook, inputs]))

    static let force = OptionSpec.flag("force", short: "f", help: "Overwrite.")
    static let initCommand = EchoCommand(
        configuration: CommandConfiguration(
            name: "init", abstract: "Create a core.", options: CommonOptions.operatorOptions + [force]))
    static let list = EchoCommand(configuration: CommandConfiguration(name: "list", abstract: "List wallets."))

    static let root = CommandGroup(
        name: "tool", abstract: "A test tool.",
        subcommands: [
            CommandGroup(name: "core", abstract: "Core things.", subcommands: [initCommand]),
            CommandGroup(name: "wallet", abstract: "Wallet things.", subcommands: [list]),
            run,
        ])

    /// Parses `arguments` against the tree.
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        try CommandLineParser(root: root).parse(arguments)
    }

    /// The parsed values when `arguments` select a command to run.
    static func parsed(_ arguments: [String]) throws -> ParsedArguments {
        let invocation = try parse(arguments)
        guard case .run(_, let parsed) = invocation else {
            throw TestFailure("expected a command to run for \(arguments), got \(invocation)")
        }
        return parsed
    }

    /// The usage error message for `arguments`.
    static func usageError(_ arguments: [String]) -> String? {
        do {
            _ = try parse(arguments)
            return nil
        } catch {
            return error.message
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a command line in-process with captured output.
func runInProcess(
    _ arguments: [String], root: (any Command)? = nil, standardInput: [UInt8] = [],
    environment: [String: String] = [:], currentDirectory: URL? = nil
) async -> CLIResult {
    let out = CapturedOutput()
    let err = CapturedOutput()
    let context = Context(
        standardOutput: out, standardError: err, standardInput: BytesInput(standardInput), environment: environment,
        currentDirectory: currentDirectory ?? URL(fileURLWithPath: NSTemporaryDirectory()))
    let status: Int32
    if let root {
        status = await CommandLineTool(root: root, version: "9.9.9").run(arguments, context: context)
    } else {
        status = await WalletOps.main(arguments, context: context)
    }
    return CLIResult(status: status, standardOutput: out.text, standardError: err.text)
}

/// A fresh temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("walletops-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A minimal base58 encoder (Bitcoin alphabet), independent of WalletCrypto's, so the tests do not
/// check the product against itself. Checked against Bitcoin Core's vectors in `ReferenceBase58Tests`.
enum ReferenceBase58 {
    static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")

    static func encode(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        var digits: [Int] = []  // base-58 digits, least significant first
        for byte in bytes {
            var carry = Int(byte)
            for i in digits.indices {
                carry += digits[i] << 8
                digits[i] = carry % 58
                carry /= 58
            }
            while carry > 0 {
                digits.append(carry % 58)
                carry /= 58
            }
        }
        return String(repeating: "1", count: zeros) + String(digits.reversed().map { alphabet[$0] })
    }
}
