import Foundation
import Playbook
import Runner

/// `walletops run PLAYBOOK`: runs a playbook with checkpoints; the same command resumes it.
struct RunCommand: Command {
    static let fresh = OptionSpec.flag("fresh", help: "Start a new run even if an unfinished one exists.")
    static let acceptChanges = OptionSpec.flag(
        "accept-changes", help: "Resume even though the playbook, an input or a var changed since.")
    static let concurrency = OptionSpec.option(
        "concurrency", valueName: "n", help: "Items in flight across all steps (overrides the playbook).",
        type: .integer(min: 1, max: 4096))

    let registry: ActionRegistry

    init(registry: ActionRegistry = WalletOps.actions) { self.registry = registry }

    var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "run", abstract: "Run a playbook, or resume its unfinished run.",
            discussion: """
                Items are checkpointed in <home>/runs.sqlite. Running the same command again
                resumes the unfinished run of the playbook; it refuses when the playbook, an
                input or a var changed since, unless --accept-changes. SIGINT/SIGTERM stop
                gracefully (exit 75, resumable); a second signal stops at once.
                Exit codes: 0 every item succeeded, 1 some items failed or were rejected,
                2 aborted (failure budget, fatal error), 64 invalid command line or playbook,
                75 locked by another run or interrupted (run the same command again).
                A report is written to <home>/reports/<run-id>.json and .md.
                """,
            options: [RunOptions.variable, Self.fresh, Self.acceptChanges, Self.concurrency] + RunOptions.running,
            arguments: [RunOptions.playbook])
    }

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        try await exiting {
            let path = arguments.argument(RunOptions.playbook)!
            let varArguments = arguments.values(RunOptions.variable)
            if arguments.count(Self.fresh) > 0 && arguments.count(Self.acceptChanges) > 0 {
                throw CLIError.usage("--fresh and --accept-changes cannot be combined")
            }
            let isJSON = arguments.value(RunOptions.logFormat) == "json"
            let prepared = try PreparedRun(
                path: path, varArguments: varArguments, context: context, registry: registry, isJSON: isJSON,
                concurrency: arguments.integer(Self.concurrency), core: arguments.coreURL)
            let mode: RunStore.OpenMode =
                arguments.count(Self.fresh) > 0
                ? .fresh : .resumeOrStart(acceptChanges: arguments.count(Self.acceptChanges) > 0)
            let resume = RunOptions.resumeCommand(
                arguments: Array(ProcessInfo.processInfo.arguments.dropFirst()),
                dropping: ["--fresh", "--accept-changes"])
            return try await RunOptions.execution(
                prepared, mode: mode, arguments: arguments, context: context, resumeCommand: resume
            ).execute()
        }
    }
}
