import Foundation
import Jobs
import Runner

/// `walletops retry RUN`: runs the failed (and skipped) items of the latest run of a playbook again.
struct RetryCommand: Command {
    let registry: ActionRegistry
    init(registry: ActionRegistry = WalletOps.actions) { self.registry = registry }

    var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "retry", abstract: "Run the failed items of a run again.",
            discussion: """
                Reloads the run's playbook with the vars it was run with; the playbook and its inputs must
                not have changed. Succeeded and rejected items are left as they are; in-doubt failures are
                probed first. Any run that was not abandoned can be retried, finished or not.
                """,
            options: RunOptions.running, arguments: [StatusCommand.run])
    }

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        try await exiting {
            let home = RunHome(arguments, context: context)
            let store = try home.openExistingStore()
            let record = try await home.run(arguments.argument(StatusCommand.run)!, in: store)
            let attributes = try await store.attributes(runID: record.id)
            guard let path = attributes["playbook"] else {
                throw CLIError(.failure, "run \(record.id) does not record its playbook file")
            }
            let varArguments = attributes.keys.filter { $0.hasPrefix("var.") }
                .sorted { Int($0.dropFirst(4)) ?? 0 < Int($1.dropFirst(4)) ?? 0 }.compactMap { attributes[$0] }
            // The core: --core, else the one the run was started with (its --core), else the steps' own.
            let core = arguments.coreURL ?? attributes["core"].flatMap(URL.init(string:))
            let prepared = try PreparedRun(
                path: path, varArguments: varArguments, context: context, registry: registry,
                isJSON: arguments.value(RunOptions.logFormat) == "json", core: core,
                services: CoreCommandSupport.jobServices(arguments, context))
            // Failed items stay failed when a retry is interrupted, so the retry itself is what resumes.
            var words = ["walletops", "retry", String(record.id)]
            if let home = arguments.value(CommonOptions.home) { words += ["--home", context.fileURL(home).path] }
            if let store = arguments.value(CommonOptions.store) {
                words += ["--store", RunStore.displayLocation(store)]
            }
            if let core { words += ["--core", core.absoluteString] }
            let resume = words.map(RunOptions.shellQuoted).joined(separator: " ")
            return try await RunOptions.execution(
                prepared, mode: .retry(runID: record.id), arguments: arguments, context: context, resumeCommand: resume
            ).execute()
        }
    }
}
