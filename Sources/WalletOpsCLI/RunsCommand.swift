import Foundation
import OMSProtocol
import Runner

/// `walletops runs`: the runs in the store, newest first.
struct RunsCommand: Command {
    static let format = OptionSpec.option(
        "format", help: "Output format.", type: .choice(["table", "json"]), default: "table")
    static let limit = OptionSpec.option(
        "limit", valueName: "n", help: "At most n runs.", type: .integer(min: 1), default: "50")

    let configuration = CommandConfiguration(
        name: "runs", abstract: "List runs, newest first.",
        options: [CommonOptions.home, CommonOptions.store, Self.format, Self.limit])

    static func time(_ seconds: Double?) -> String {
        guard let seconds else { return "-" }
        return RFC3339.format(Int64(seconds.rounded(.down)))
    }

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = RunHome(arguments, context: context)
        let runs: [RunRecord]
        if home.storeExists {
            runs = try await home.openStore().allRuns(limit: arguments.integer(Self.limit) ?? 50)
        } else {
            runs = []
        }
        if arguments.value(Self.format) == "json" {
            let list = JSONField.array(
                runs.map { run in
                    .object([
                        ("id", .int(Int(run.id))), ("playbook", .string(run.identity.playbookName)),
                        ("status", .string(run.status.rawValue)), ("started_at", .string(Self.time(run.startedAt))),
                        ("ended_at", run.endedAt.map { .string(Self.time($0)) } ?? .null),
                        ("succeeded", .int(run.counts[.succeeded] ?? 0)), ("failed", .int(run.counts[.failed] ?? 0)),
                        ("rejected", .int(run.counts[.rejected] ?? 0)), ("skipped", .int(run.counts[.skipped] ?? 0)),
                        (
                            "lock",
                            run.lockPID.map { .string("\($0)@\(run.lockHost ?? "?")") } ?? .null
                        ),
                        ("message", run.message.map { .string($0) } ?? .null),
                    ])
                })
            context.standardOutput.writeLine(list.text(.init(secrets: [String]())))
            return ExitCode.success.rawValue
        }
        var rows = [
            ["id", "playbook", "status", "started", "ended", "succeeded", "failed", "rejected", "skipped", "lock"]
        ]
        for run in runs {
            rows.append([
                String(run.id), run.identity.playbookName, run.status.rawValue, Self.time(run.startedAt),
                Self.time(run.endedAt), String(run.counts[.succeeded] ?? 0), String(run.counts[.failed] ?? 0),
                String(run.counts[.rejected] ?? 0), String(run.counts[.skipped] ?? 0),
                run.lockPID.map { "\($0)@\(run.lockHost ?? "?")" } ?? "-",
            ])
        }
        context.standardOutput.write(TextTable.render(rows))
        return ExitCode.success.rawValue
    }
}
