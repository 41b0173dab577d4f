import Foundation
import Jobs
import OMSProtocol
import Playbook
import Runner

/// `walletops due DIR`: runs the playbooks of DIR whose `schedule` fired since the last check.
///
/// Meant for one crontab line, `* * * * * walletops due /etc/walletops/playbooks`. The last check
/// per playbook is kept in the run store; a playbook checked for the first time counts from one
/// minute before now. A due playbook resumes its unfinished run (the same rules as `run`).
struct DueCommand: Command {
    static let directory = ArgumentSpec("dir", help: "The folder of playbooks (*.yaml, *.yml).")
    static let now = OptionSpec.option(
        "now", valueName: "time", help: "Check as of this ISO 8601 time (for testing schedules).")

    let registry: ActionRegistry
    init(registry: ActionRegistry = WalletOps.actions) { self.registry = registry }

    var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "due", abstract: "Run the scheduled playbooks of a folder that are due.",
            discussion: """
                For cron: * * * * * walletops due /etc/walletops/playbooks. Each playbook with a schedule
                runs when its cron expression fired since the last check (kept in the run store), with the
                same rules as run; each --var goes to the playbooks that declare it. The exit code is the
                worst of the runs' codes.
                """,
            options: [Self.now, RunOptions.variable] + RunOptions.running, arguments: [Self.directory])
    }

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        var given: Date?
        if let text = arguments.value(Self.now) {
            guard let parsed = RFC3339.date(text) else {
                throw CLIError.usage(
                    "invalid value '\(text)' for '--now': expected an ISO 8601 time such as 2026-01-31T02:30:00Z")
            }
            given = parsed
        }
        let folder = context.fileURL(arguments.argument(Self.directory)!)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
        } catch {
            throw CLIError.ioError("cannot list \(folder.path): \(error.localizedDescription)")
        }
        let home = RunHome(arguments, context: context)
        let store = try home.openStore()
        // The store's clock, so that hosts sharing a store agree on which fire times have passed.
        var now = given ?? Date()
        if given == nil { now = Date(timeIntervalSince1970: try await store.currentTime()) }
        var worst: Int32 = 0
        // One set of services for the folder: its playbooks share the signed-in sessions.
        let services = CoreCommandSupport.jobServices(arguments, context)
        for name in names {
            let path = folder.appendingPathComponent(name).path
            let code = try await exitCode(context) {
                let playbook = try PreparedRun.load(
                    path: path, url: URL(fileURLWithPath: path), registry: registry, context: context)
                guard let schedule = playbook.schedule else { return 0 }
                let due = try await store.checkSchedule(playbook: playbook.name, at: now.timeIntervalSince1970) {
                    last, time in
                    schedule.isDue(after: Date(timeIntervalSince1970: last), through: Date(timeIntervalSince1970: time))
                }
                guard due else {
                    let next =
                        schedule.nextFireTime(after: now).map { RFC3339.format($0) } ?? "never"
                    context.standardError.writeLine("\(name): '\(playbook.name)' not due (next at \(next))")
                    return 0
                }
                context.standardError.writeLine("\(name): '\(playbook.name)' is due (\(schedule.source)); running")
                // Each --var goes to the playbooks that declare it (a folder's playbooks take different vars).
                let vars = arguments.values(RunOptions.variable).filter { assignment in
                    playbook.vars[String(assignment.prefix { $0 != "=" })] != nil
                }
                let prepared = try PreparedRun(
                    path: path, varArguments: vars, context: context, registry: registry,
                    isJSON: arguments.value(RunOptions.logFormat) == "json", core: arguments.coreURL,
                    services: services)
                let resume = RunOptions.resumeCommand(
                    playbook: path, vars: vars, home: home.url.path, store: arguments.value(CommonOptions.store),
                    core: arguments.coreURL)
                return try await RunOptions.execution(
                    prepared, mode: .resumeOrStart(acceptChanges: false), arguments: arguments, context: context,
                    resumeCommand: resume
                ).execute()
            }
            worst = max(worst, code)
        }
        return worst
    }

    /// One playbook's exit code: its problems are printed and do not stop the others.
    private func exitCode(_ context: Context, _ body: () async throws -> Int32) async throws -> Int32 {
        do {
            return try await body()
        } catch let exit as CommandExit {
            return exit.code
        } catch let error as CLIError {
            context.standardError.writeLine("Error: \(error.message)")
            return error.exitCode.rawValue
        }
    }
}
