import Foundation
import Jobs
import Playbook
import Runner

/// `walletops run PLAYBOOK`: runs a playbook with checkpoints; the same command resumes it.
struct RunCommand: Command {
    static let fresh = OptionSpec.flag("fresh", help: "Start a new run even if an unfinished one exists.")
    static let acceptChanges = OptionSpec.flag(
        "accept-changes", help: "Resume even though the playbook, an input or a var changed since.")
    static let resume = OptionSpec.option(
        "resume", valueName: "run", help: "Resume this unfinished run (an id from 'walletops runs').",
        type: .integer(min: 1))
    static let concurrency = OptionSpec.option(
        "concurrency", valueName: "n", help: "Items in flight across all steps (overrides the playbook).",
        type: .integer(min: 1, max: 4096))

    let registry: ActionRegistry

    init(registry: ActionRegistry = WalletOps.actions) { self.registry = registry }

    var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "run", abstract: "Run a playbook, or resume its unfinished run.",
            discussion: """
                Items are checkpointed in the run store (<home>/runs.sqlite, or --store). A run is
                what it does: the playbook, its inputs and the vars that change the work. Running
                the same command again resumes the unfinished run of the same work; other work
                starts a new run and names the unfinished one it leaves (--resume N returns to it,
                --accept-changes resumes the latest whatever changed). SIGINT/SIGTERM stop
                gracefully (exit 75, resumable); a second signal stops at once.
                Exit codes: 0 every item succeeded, 1 some items failed or were rejected,
                2 aborted (failure budget, fatal error), 64 invalid command line or playbook,
                75 locked by another run or interrupted (run the same command again).
                A report is written to <home>/reports/<run-id>.json and .md.
                """,
            options: [RunOptions.variable, Self.fresh, Self.acceptChanges, Self.resume, Self.concurrency]
                + RunOptions.running,
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
                concurrency: arguments.integer(Self.concurrency), core: arguments.coreURL,
                services: CoreCommandSupport.jobServices(arguments, context))
            let accept = arguments.count(Self.acceptChanges) > 0
            let mode: RunStore.OpenMode
            if let runID = arguments.integer(Self.resume) {
                if arguments.count(Self.fresh) > 0 { throw CLIError.usage("--fresh and --resume cannot be combined") }
                mode = .resume(runID: Int64(runID), acceptChanges: accept)
            } else {
                mode = arguments.count(Self.fresh) > 0 ? .fresh : .resumeOrStart(acceptChanges: accept)
            }
            let resume = RunOptions.resumeCommand(
                arguments: Array(ProcessInfo.processInfo.arguments.dropFirst()),
                dropping: ["--fresh", "--accept-changes"])
            return try await RunOptions.execution(
                prepared, mode: mode, arguments: arguments, context: context, resumeCommand: resume
            ).execute()
        }
    }

    /// The vars of the playbook named among `words` (the first `.yaml` or `.yml` path): name, type,
    /// default or "required", whether a resume may change it, and the description.
    func extraHelp(_ words: [String], context: Context) -> String? {
        guard let path = words.first(where: { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }) else { return nil }
        let url = context.fileURL(path)
        let playbook: Playbook
        do {
            playbook = try Playbook.load(contentsOf: url, options: .init(knownActions: registry.names))
        } catch {
            return "Cannot list the vars of \(path): \(error.description)\n"
        }
        guard !playbook.vars.isEmpty else { return "\(playbook.name) (\(path)) takes no vars.\n" }
        var rows = [["var", "type", "default", "description"]]
        for declaration in playbook.vars.values.sorted(by: { $0.name < $1.name }) {
            let type = declaration.type.rawValue
            let value: String
            if declaration.required {
                value = "(required)"
            } else if let defaultValue = declaration.defaultValue {
                if case .string(let text) = defaultValue {
                    value = text.isEmpty ? "\"\"" : text
                } else {
                    value = defaultValue.json
                }
            } else {
                value = "-"
            }
            var description = declaration.description ?? ""
            if !declaration.choices.isEmpty {
                description =
                    "One of " + declaration.choices.joined(separator: ", ") + "."
                    + (description.isEmpty ? "" : " " + description)
            }
            if !declaration.changesWork {
                description += (description.isEmpty ? "" : " ") + "(a resume may change it)"
            }
            rows.append(["--var \(declaration.name)=", type, value, description])
        }
        var text = "Vars of \(playbook.name) (\(path)):\n" + TextTable.render(rows)
        if let summary = playbook.description, !summary.isEmpty { text = summary + "\n\n" + text }
        return text
    }
}
