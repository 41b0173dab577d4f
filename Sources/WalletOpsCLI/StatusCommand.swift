import Foundation
import Runner

/// `walletops status RUN`: per-step counts, rate and ETA of a run; `--watch` refreshes every second
/// until the run stops.
struct StatusCommand: Command {
    static let run = ArgumentSpec("run", help: "The run id (see 'walletops runs').")
    static let watch = OptionSpec.flag("watch", short: "w", help: "Refresh every second until the run stops.")

    let configuration = CommandConfiguration(
        name: "status", abstract: "Show a run's progress per step.",
        options: [CommonOptions.home, CommonOptions.store, Self.watch],
        arguments: [Self.run])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = RunHome(arguments, context: context)
        let store = try home.openExistingStore()
        let text = arguments.argument(Self.run)!
        while true {
            let record = try await home.run(text, in: store)
            context.standardOutput.write(try await Self.render(record, store: store))
            let active = record.status == .running && record.lockPID != nil
            guard arguments.count(Self.watch) > 0, active else { break }
            try await Task.sleep(for: .seconds(1))
            context.standardOutput.writeLine()
        }
        return ExitCode.success.rawValue
    }

    static func render(_ record: RunRecord, store: RunStore) async throws -> String {
        let steps = try await store.stepCounts(runID: record.id)
        let attributes = try await store.attributes(runID: record.id)
        let end = record.endedAt ?? Date().timeIntervalSince1970
        let elapsed = max(end - record.startedAt, 1e-3)
        var text = "run \(record.id) of '\(record.identity.playbookName)': \(record.status.rawValue)"
        if let pid = record.lockPID { text += ", locked by pid \(pid)@\(record.lockHost ?? "?")" }
        if let message = record.message { text += " (\(message))" }
        text += ", started \(RunsCommand.time(record.startedAt))"
        if record.endedAt != nil { text += ", ended \(RunsCommand.time(record.endedAt))" }
        text += "\n"
        var rows = [["step", "status", "done", "total", "succeeded", "failed", "rejected", "skipped", "rate", "eta"]]
        let names = Set(steps.keys).union(
            attributes.keys.filter { $0.hasPrefix("total.") }.map { String($0.dropFirst("total.".count)) })
        for name in names.sorted() {
            let entry = steps[name] ?? (nil, [:])
            let counts = entry.counts
            let done = [ItemState.succeeded, .failed, .rejected, .skipped].reduce(0) { $0 + (counts[$1] ?? 0) }
            let total = attributes["total.\(name)"].flatMap { Int($0) }
            let rate = Double(done) / elapsed
            var eta = "-"
            if let total, total > done, rate > 0, record.status == .running {
                eta = ProgressDisplay.clock(Double(total - done) / rate)
            }
            rows.append([
                name, entry.status ?? "waiting", String(done), total.map(String.init) ?? "?",
                String(counts[.succeeded] ?? 0), String(counts[.failed] ?? 0), String(counts[.rejected] ?? 0),
                String(counts[.skipped] ?? 0), String(format: "%.0f/s", rate), eta,
            ])
        }
        text += TextTable.render(rows)
        return text
    }
}
