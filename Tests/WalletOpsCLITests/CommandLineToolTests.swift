import Foundation
import Testing

@testable import WalletOpsCLI

@Suite struct CommandLineToolTests {
    @Test func helpGoesToStandardOutputInTheArgumentParserLayout() async {
        let result = await runInProcess(["help", "run"], root: TestTree.root)
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let expected = """
            OVERVIEW: Run a playbook.

            Runs it.

            USAGE: tool run --name <name> [<options>] <playbook> [<inputs> ...]

            ARGUMENTS:
              <playbook>                The playbook file.
              <inputs>                  Input files.

            OPTIONS:
              -n, --name <name>         A name.
              --var <key=value>         A template variable. (repeatable)
              --claim <key=value>       A claim. (repeatable)
              -c, --concurrency <n>     Parallel items. (default: 4)
              --offset <n>              An offset.
              --format <format>         Output format. (values: text, json; default: text)
              -v, --verbose             More output.
              -q, --quiet               Less output.
              --to <address>            A public address.
              --home <dir>              The walletops home folder (database, credentials,
                                        run checkpoints). (default: $WALLETOPS_HOME, else
                                        ./.walletops)
              --core <url>              The URL of a served core (walletops core serve);
                                        without it, the embedded core in the home folder.
              -h, --help                Show help information.

            """
        #expect(result.standardOutput == expected, "\(result)")
    }

    @Test func helpTextWraps() {
        #expect(HelpFormatter.wrap("aa bb cc dd", width: 5) == ["aa bb", "cc dd"])
        #expect(HelpFormatter.wrap("a averyveryverylongword b", width: 5) == ["a", "averyveryverylongword", "b"])
        #expect(HelpFormatter.wrap("", width: 5) == [""])
    }

    @Test func groupHelpListsSubcommands() async {
        let root = await runInProcess(["--help"], root: TestTree.root)
        #expect(root.status == 0)
        #expect(root.standardOutput.contains("USAGE: tool <subcommand>\n"))
        #expect(root.standardOutput.contains("  --version                 Show the version.\n"))
        #expect(root.standardOutput.contains("SUBCOMMANDS:\n  core                      Core things.\n"))
        #expect(root.standardOutput.contains("  help                      Show subcommand help information.\n"))
        #expect(root.standardOutput.hasSuffix("\n  See 'tool help <subcommand>' for detailed help.\n"))
        let group = await runInProcess(["core", "-h"], root: TestTree.root)
        #expect(group.standardOutput.contains("USAGE: tool core <subcommand>\n"))
        #expect(!group.standardOutput.contains("--version"))
        #expect(!group.standardOutput.contains("  help "))
        #expect(group.standardOutput.hasSuffix("\n  See 'tool help core <subcommand>' for detailed help.\n"))
    }

    @Test func usageErrorsGoToStandardErrorWithUsageAndExit64() async {
        let result = await runInProcess(["run", "--nmae", "x", "p"], root: TestTree.root)
        #expect(result.status == 64)
        #expect(result.standardOutput == "")
        #expect(
            result.standardError == """
                Error: unknown option '--nmae'; did you mean '--name'?
                Usage: tool run --name <name> [<options>] <playbook> [<inputs> ...]
                See 'tool run --help' for more.

                """)
        let group = await runInProcess(["wallet", "lst"], root: TestTree.root)
        #expect(group.status == 64)
        #expect(
            group.standardError == """
                Error: unknown subcommand 'lst'; did you mean 'list'?
                Usage: tool wallet <subcommand>
                See 'tool wallet --help' for more.

                """)
    }

    @Test func versionFlag() async {
        let result = await runInProcess(["--version"], root: TestTree.root)
        #expect(result.status == 0)
        #expect(result.standardOutput == "tool 9.9.9\n")
    }

    @Test func commandErrorsMapToExitCodes() async {
        struct Unexpected: Error, CustomStringConvertible { var description: String { "disk on fire" } }
        let cases: [(any Error, Int32, String)] = [
            (CLIError.dataError("bad.csv:3: missing column"), 65, "Error: bad.csv:3: missing column\n"),
            (CLIError.ioError("cannot write report"), 74, "Error: cannot write report\n"),
            (CLIError(.temporaryFailure, "lock held"), 75, "Error: lock held\n"),
            (CLIError(.failure, "2 items failed"), 1, "Error: 2 items failed\n"),
            (CLIError(.aborted, "interrupted"), 2, "Error: interrupted\n"),
            (Unexpected(), 70, "Error: internal error in 'tool wallet list': disk on fire\n"),
        ]
        for (error, status, message) in cases {
            let command = EchoCommand(
                configuration: CommandConfiguration(name: "list", abstract: "List."), result: { _, _ in throw error })
            let root = CommandGroup(
                name: "tool", abstract: "T.",
                subcommands: [CommandGroup(name: "wallet", abstract: "W.", subcommands: [command])])
            let result = await runInProcess(["wallet", "list"], root: root)
            #expect(result.status == status)
            #expect(result.standardError == message)
            #expect(result.standardOutput == "ran tool wallet list\n")
        }
    }

    @Test func usageErrorThrownByACommandPrintsItsUsage() async {
        let command = EchoCommand(
            configuration: CommandConfiguration(name: "list", abstract: "List."),
            result: { _, _ in throw CLIError.usage("--limit needs --offset") })
        let root = CommandGroup(name: "tool", abstract: "T.", subcommands: [command])
        let result = await runInProcess(["list"], root: root)
        #expect(result.status == 64)
        #expect(
            result.standardError
                == "Error: --limit needs --offset\nUsage: tool list\nSee 'tool list --help' for more.\n")
    }

    @Test func exitCodeConvention() {
        let codes: [(CLIError.Code, Int32)] = [
            (.failure, 1), (.aborted, 2), (.usage, 64), (.dataError, 65), (.internalError, 70), (.ioError, 74),
            (.temporaryFailure, 75),
        ]
        for (code, status) in codes { #expect(code.exitCode.rawValue == status, "\(code)") }
        #expect(ExitCode.success.rawValue == 0)
        #expect(CLIError.usage("a") == CLIError.usage("b"))
        #expect(CLIError.usage("a") != CLIError.dataError("a"))
    }

    @Test func theTestTreeAndTheRealTreeAreWellFormed() {
        func problems(_ command: any Command) -> [String] {
            command.configuration.problems() + command.configuration.subcommands.flatMap(problems)
        }
        #expect(problems(TestTree.root) == [])
        #expect(problems(WalletOps.root) == [])
        let broken = CommandConfiguration(
            name: "x", abstract: "",
            options: [
                .option("home", help: ""), .option("home", short: "h", help: ""),
                .option("a", help: "", default: "1", required: true),
            ],
            arguments: [ArgumentSpec("rest", help: "", repeating: true), ArgumentSpec("last", help: "")],
            subcommands: [CommandGroup(name: "help", abstract: "", subcommands: [])])
        #expect(
            broken.problems() == [
                "x: duplicate option --home", "x: duplicate short option -h", "x: --a is required and has a default",
                "x: repeating argument <rest> is not last", "x: a group takes no options or arguments of its own",
                "x: subcommand name help is reserved",
            ])
    }
}
