import Foundation
import Testing

@testable import WalletOpsCLI

@Suite struct CommandLineParserTests {
    // A private key from ethereum/tests KeyStoreTests (the "mycrypto" case); never to be echoed.
    static let key = "05a4d3eb46c742cb8850440145ce70cbc80b59f891cf5f50fd3e9c280b50c4e4"

    @Test func spaceAndEqualsFormsAreTheSame() throws {
        let spaced = try TestTree.parsed(["run", "--name", "alpha", "--format", "json", "p.yaml"])
        let equals = try TestTree.parsed(["run", "--name=alpha", "--format=json", "p.yaml"])
        #expect(spaced == equals)
        #expect(spaced.value(TestTree.name) == "alpha")
        #expect(spaced.value(TestTree.format) == "json")
        #expect(spaced.argument(TestTree.playbook) == "p.yaml")
        #expect(spaced.commandPath == ["tool", "run"])
    }

    @Test func equalsFormKeepsLaterEqualsSigns() throws {
        let parsed = try TestTree.parsed(["run", "--name=a=b", "p", "--var=k=v=w"])
        #expect(parsed.value(TestTree.name) == "a=b")
        #expect(parsed.keyValues(TestTree.variable).map(\.value) == ["v=w"])
    }

    @Test func shortForms() throws {
        for form in [["-n", "alpha"], ["-n=alpha"], ["-nalpha"]] {
            let parsed = try TestTree.parsed(["run"] + form + ["p"])
            #expect(parsed.value(TestTree.name) == "alpha", "\(form)")
        }
    }

    @Test func combinedShortFlagsAndCounting() throws {
        let parsed = try TestTree.parsed(["run", "-vvq", "-vn", "alpha", "p"])
        #expect(parsed.count(TestTree.verbose) == 3)
        #expect(parsed.flag(TestTree.quiet))
        #expect(parsed.value(TestTree.name) == "alpha")
        let none = try TestTree.parsed(["run", "-n", "a", "p"])
        #expect(!none.flag(TestTree.verbose))
        #expect(none.count(TestTree.verbose) == 0)
    }

    @Test func repeatedKeyValueOptionsKeepOrder() throws {
        let parsed = try TestTree.parsed([
            "run", "-n", "a", "--var", "region=eu", "--claim", "sub=42", "--var", "tier=gold", "p", "--var=region=us",
        ])
        let pairs = parsed.keyValues(TestTree.variable)
        #expect(pairs.map(\.key) == ["region", "tier", "region"])
        #expect(pairs.map(\.value) == ["eu", "gold", "us"])
        #expect(parsed.keyValueDictionary(TestTree.variable) == ["region": "us", "tier": "gold"])
        #expect(parsed.keyValueDictionary(TestTree.claim) == ["sub": "42"])
        #expect(parsed.values(TestTree.variable) == ["region=eu", "tier=gold", "region=us"])
    }

    @Test func emptyValueAfterEqualsIsAllowedInKeyValue() throws {
        let parsed = try TestTree.parsed(["run", "-n", "a", "--var", "empty=", "p"])
        #expect(parsed.keyValueDictionary(TestTree.variable) == ["empty": ""])
    }

    @Test func defaultsAreFilledButNotGiven() throws {
        let parsed = try TestTree.parsed(["run", "-n", "a", "p"])
        #expect(parsed.integer(TestTree.concurrency) == 4)
        #expect(!parsed.wasGiven(TestTree.concurrency))
        #expect(parsed.value(TestTree.offset) == nil)
        let given = try TestTree.parsed(["run", "-n", "a", "-c", "8", "p"])
        #expect(given.integer(TestTree.concurrency) == 8)
        #expect(given.wasGiven(TestTree.concurrency))
    }

    @Test func optionsAndArgumentsInterleave() throws {
        let parsed = try TestTree.parsed(["run", "p", "--name", "a", "in1", "-v", "in2"])
        #expect(parsed.argument(TestTree.playbook) == "p")
        #expect(parsed.arguments(TestTree.inputs) == ["in1", "in2"])
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try TestTree.parsed(["run", "-n", "a", "--", "--not-an-option", "-v", "--help"])
        #expect(parsed.argument(TestTree.playbook) == "--not-an-option")
        #expect(parsed.arguments(TestTree.inputs) == ["-v", "--help"])
        #expect(!parsed.flag(TestTree.verbose))
    }

    @Test func singleDashIsAValue() throws {
        let parsed = try TestTree.parsed(["run", "-n", "-", "-"])
        #expect(parsed.value(TestTree.name) == "-")
        #expect(parsed.argument(TestTree.playbook) == "-")
    }

    @Test func negativeNumbersAreValues() throws {
        let parsed = try TestTree.parsed(["run", "-n", "a", "--offset", "-5", "-3.5"])
        #expect(parsed.integer(TestTree.offset) == -5)
        #expect(parsed.argument(TestTree.playbook) == "-3.5")
    }

    @Test func choiceAsEnum() throws {
        enum Format: String { case text, json }
        let parsed = try TestTree.parsed(["run", "-n", "a", "--format", "json", "p"])
        #expect(parsed.choice(TestTree.format, as: Format.self) == .json)
    }

    @Test func missingValue() {
        #expect(TestTree.usageError(["run", "p", "--name"]) == "missing value for option '--name <name>'")
        #expect(TestTree.usageError(["run", "p", "--name", "--verbose"]) == "missing value for option '--name <name>'")
        #expect(TestTree.usageError(["run", "p", "-n"]) == "missing value for option '-n <name>'")
    }

    @Test func missingRequiredOptionAndArgument() {
        #expect(TestTree.usageError(["run", "p"]) == "missing required option '--name <name>'")
        #expect(TestTree.usageError(["run", "-n", "a"]) == "missing expected argument '<playbook>'")
    }

    @Test func unknownOptionSuggestsTheClosest() {
        #expect(TestTree.usageError(["run", "--nmae", "a", "p"]) == "unknown option '--nmae'; did you mean '--name'?")
        #expect(
            TestTree.usageError(["run", "-n", "a", "--concurency=3", "p"])
                == "unknown option '--concurency'; did you mean '--concurrency'?")
        #expect(
            TestTree.usageError(["run", "-n", "a", "--verb", "p"])
                == "unknown option '--verb'; did you mean '--verbose'?")
        #expect(TestTree.usageError(["run", "-n", "a", "--zzzzzz", "p"]) == "unknown option '--zzzzzz'")
        #expect(TestTree.usageError(["run", "--hepl"]) == "unknown option '--hepl'; did you mean '--help'?")
    }

    @Test func allUnknownOptionsAreReportedTogether() {
        #expect(
            TestTree.usageError(["run", "--nmae", "a", "--bogus", "-z", "-vx", "p"])
                == "unknown options '--nmae' (did you mean '--name'?), '--bogus', '-z', '-x'")
    }

    @Test func badTypedValues() {
        #expect(
            TestTree.usageError(["run", "-n", "a", "-c", "many", "p"])
                == "invalid value 'many' for '-c <n>': expected an integer from 1 to 64")
        #expect(
            TestTree.usageError(["run", "-n", "a", "--concurrency", "0", "p"])
                == "invalid value '0' for '--concurrency <n>': expected an integer from 1 to 64")
        #expect(
            TestTree.usageError(["run", "-n", "a", "--format", "jsno", "p"])
                == "invalid value 'jsno' for '--format <format>': expected one of: text, json (did you mean 'json'?)")
        #expect(
            TestTree.usageError(["run", "-n", "a", "--var", "novalue", "p"])
                == "invalid value 'novalue' for '--var <key=value>': expected key=value")
        #expect(
            TestTree.usageError(["run", "-n", "a", "--var", "=x", "p"])
                == "invalid value '=x' for '--var <key=value>': expected key=value")
        #expect(
            TestTree.usageError(["run", "-n", "a", "--core", "ftp://host", "p"])
                == "invalid value 'ftp://host' for '--core <url>': expected a URL starting with http:// or https://")
    }

    @Test func flagsTakeNoValueAndSingleOptionsComeOnce() {
        #expect(
            TestTree.usageError(["run", "-n", "a", "--verbose=yes", "p"]) == "flag '--verbose' does not take a value")
        #expect(TestTree.usageError(["run", "-n", "a", "-n", "b", "p"]) == "option '--name' given more than once")
    }

    @Test func unexpectedArgument() {
        #expect(TestTree.usageError(["core", "init", "extra"]) == "unexpected argument 'extra'")
    }

    @Test func subcommandsNest() throws {
        guard case .run(let path, let parsed) = try TestTree.parse(["core", "init", "--force", "--home", "/h"]) else {
            Issue.record("expected run")
            return
        }
        #expect(path.displayName == "tool core init")
        #expect(parsed.flag(TestTree.force))
        #expect(parsed.value(CommonOptions.home) == "/h")
    }

    @Test func unknownAndMissingSubcommands() {
        #expect(TestTree.usageError(["walet", "list"]) == "unknown subcommand 'walet'; did you mean 'wallet'?")
        #expect(
            TestTree.usageError(["frobnicate"])
                == "unknown subcommand 'frobnicate'; expected one of: core, wallet, run, help")
        #expect(TestTree.usageError(["core"]) == "missing subcommand; expected one of: init")
        #expect(TestTree.usageError([]) == "missing subcommand; expected one of: core, wallet, run, help")
        #expect(TestTree.usageError(["core", "--force"]) == "unknown option '--force'")
        #expect(TestTree.usageError(["--verison"]) == "unknown option '--verison'; did you mean '--version'?")
    }

    @Test func helpAtEveryLevel() throws {
        let cases: [([String], String)] = [
            (["--help"], "tool"), (["-h"], "tool"), (["help"], "tool"),
            (["core", "--help"], "tool core"), (["help", "core"], "tool core"),
            (["core", "init", "-h"], "tool core init"), (["help", "core", "init"], "tool core init"),
            (["run", "--name", "x", "--help"], "tool run"), (["run", "--bogus", "-h"], "tool run"),
        ]
        for (arguments, expected) in cases {
            guard case .help(let path) = try TestTree.parse(arguments) else {
                Issue.record("\(arguments) did not ask for help")
                continue
            }
            #expect(path.displayName == expected, "\(arguments)")
        }
        #expect(TestTree.usageError(["help", "core", "nope"]) == "unknown subcommand 'nope'; expected one of: init")
        #expect(
            TestTree.usageError(["help", "core", "init", "more"])
                == "unknown subcommand 'more'; 'tool core init' has no subcommands")
        guard case .help(let path) = try TestTree.parse(["help", "core", "init", "--verbose"]) else {
            Issue.record("help ignores options after the words")
            return
        }
        #expect(path.displayName == "tool core init")
    }

    @Test func versionOnlyAtTheRoot() throws {
        guard case .version = try TestTree.parse(["--version"]) else {
            Issue.record("--version did not ask for the version")
            return
        }
        #expect(TestTree.usageError(["run", "-n", "a", "p", "--version"]) == "unknown option '--version'")
    }

    @Test func keyShapedValuesAreRefusedWithoutEchoingThem() {
        let key = Self.key
        let base58Keypair = ReferenceBase58.encode([UInt8](repeating: 0xAB, count: 64))
        let jsonArray = "[" + [String](repeating: "7", count: 64).joined(separator: ",") + "]"
        let cases: [[String]] = [
            ["run", "-n", key, "p"],
            ["run", "-n", "0x" + key.uppercased(), "p"],
            ["run", "--name=\(key)", "p"],
            ["run", "-n\(key)", "p"],
            ["run", "-n", "a", key],
            ["run", "-n", "a", "p", "extra", key],
            ["run", "-n", "a", "--private-key=\(key)", "p"],
            ["run", "-n", "a", "--\(key)", "p"],
            ["run", "-n", "a", "--private-key", key, "p"],
            ["run", "-n", "a", "p", "--", key],
            [key],
            ["core", key],
            ["core", "--private-key=\(key)"],
            ["--\(key)"],
            ["help", key],
            ["run", "-n", base58Keypair, "p"],
            ["run", "-n", jsonArray, "p"],
        ]
        for arguments in cases {
            guard let message = TestTree.usageError(arguments) else {
                Issue.record("accepted a key-shaped value in \(arguments.count) arguments")
                continue
            }
            #expect(message.contains("looks like a private key"))
            #expect(message.contains("shell history"))
            #expect(!message.contains(key.prefix(12)) && !message.uppercased().contains(key.uppercased().prefix(12)))
            #expect(!message.contains(base58Keypair.prefix(12)))
        }
    }

    @Test func optionsThatTakePublicKeysAcceptThem() throws {
        let address = ReferenceBase58.encode([UInt8](repeating: 0x5A, count: 32))
        #expect(address.count == 44)
        let parsed = try TestTree.parsed(["run", "-n", "a", "--to", address, "p"])
        #expect(parsed.value(TestTree.address) == address)
    }

    @Test func homeAndCoreResolution() throws {
        let out = CapturedOutput()
        func context(_ environment: [String: String]) -> Context {
            Context(
                standardOutput: out, standardError: out, environment: environment,
                currentDirectory: URL(fileURLWithPath: "/work/dir"))
        }
        let given = try TestTree.parsed(["core", "init", "--home", "rel/home", "--core", "https://core.example:8443"])
        #expect(given.home(in: context(["WALLETOPS_HOME": "/env"])).url.path == "/work/dir/rel/home")
        #expect(given.coreURL?.absoluteString == "https://core.example:8443")
        let defaulted = try TestTree.parsed(["core", "init"])
        #expect(defaulted.home(in: context(["WALLETOPS_HOME": "/env/home"])).url.path == "/env/home")
        #expect(defaulted.home(in: context(["WALLETOPS_HOME": ""])).url.path == "/work/dir/.walletops")
        #expect(defaulted.home(in: context([:])).url.path == "/work/dir/.walletops")
        #expect(defaulted.coreURL == nil)
    }

    @Test func editDistance() {
        #expect(Suggestion.editDistance("tpye", "type") == 1)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.closest(to: "wallt", among: ["wallet", "core"]) == "wallet")
        #expect(Suggestion.closest(to: "xyz", among: ["wallet", "core"]) == nil)
    }
}
