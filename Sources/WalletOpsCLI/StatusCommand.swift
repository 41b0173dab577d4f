import Foundation
import Runner

/// `walletops status RUN`: per-step counts, rate and ETA of a run; `--watch` refreshes every second
/// until the run stops.
struct StatusCommand: Command {
    static let run = ArgumentSpec("run", help: "The run id (see 'walletops runs').")
    static let watch = OptionSpec.flag("watch", short: "w", help: "Refresh every second until the run stops.")
    static let format = OptionSpec.option(
        "format", help: "Output format (json: one object per refresh).", type: .choice(["table", "json"]),
        default: "table")

    let configuration = CommandConfiguration(
        name: "status", abstract: "Show a run's progress per step.",
        options: [CommonOptions.home, CommonOptions.store, Self.watch, Self.format],
        arguments: [Self.run])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = RunHome(arguments, context: context)
        let store = try home.openExistingStore()
        let text = arguments.argument(Self.run)!
        while true {
            let record = try await home.run(text, in: store)
            let isJSON = arguments.value(Self.format) == "json"
            if isJSON {
                context.standardOutput.writeLine(
                    try await Self.json(record, store: store).text(.init(secrets: [String]())))
            } else {
                context.standardOutput.write(try await Self.render(record, store: store))
            }
            let active = record.status == .running && record.lockPID != nil
            guard arguments.count(Self.watch) > 0, active else { break }
            try await Task.sleep(for: .seconds(1))
            if !isJSON { context.standardOutput.writeLine() }
        }
        return ExitCode.success.rawValue
    }

    /// One step's line of `status`.
    struct StepLine {
        var name: String
        var status: String
        var done: Int
        var total: Int?
        var counts: [ItemState: Int]
        var rate: Double
        /// Seconds to go, while the run is running and the total is known.
        var eta: Double?
    }

    /// The steps of `record`, in name order: the counted ones and those with a total but no item yet.
    static func stepLines(_ record: RunRecord, store: RunStore) async throws -> [StepLine] {
        let steps = try await store.stepCounts(runID: record.id)
        let attributes = try await store.attributes(runID: record.id)
        let end = record.endedAt ?? Date().timeIntervalSince1970
        let elapsed = max(end - record.startedAt, 1e-3)
        let names = Set(steps.keys).union(
            attributes.keys.filter { $0.hasPrefix("total.") }.map { String($0.dropFirst("total.".count)) })
        return names.sorted().map { name in
            let entry = steps[name] ?? (nil, [:])
            let done = [ItemState.succeeded, .failed, .rejected, .skipped].reduce(0) { $0 + (entry.counts[$1] ?? 0) }
            let total = attributes["total.\(name)"].flatMap { Int($0) }
            let rate = Double(done) / elapsed
            var eta: Double?
            if let total, total > done, rate > 0, record.status == .running { eta = Double(total - done) / rate }
            return StepLine(
                name: name, status: entry.status ?? "waiting", done: done, total: total, counts: entry.counts,
                rate: rate, eta: eta)
        }
    }

    /// `status --format json`: the run and its steps, times in RFC 3339, rates per second.
    static func json(_ record: RunRecord, store: RunStore) async throws -> JSONField {
        let steps = try await stepLines(record, store: store).map { line -> JSONField in
            .object([
                ("step", .string(line.name)), ("status", .string(line.status)), ("done", .int(line.done)),
                ("total", line.total.map { .int($0) } ?? .null),
                ("succeeded", .int(line.counts[.succeeded] ?? 0)), ("failed", .int(line.counts[.failed] ?? 0)),
                ("rejected", .int(line.counts[.rejected] ?? 0)), ("skipped", .int(line.counts[.skipped] ?? 0)),
                ("rate", .double(line.rate)), ("eta_seconds", line.eta.map { .double($0) } ?? .null),
            ])
        }
        let chunks = try await store.leaseSummary(runID: record.id).map { lease -> JSONField in
            .object([
                ("step", .string(lease.step)), ("chunk_size", .int(lease.chunkSize)),
                ("chunks", lease.chunks.map { .int($0) } ?? .null), ("done", .int(lease.done)),
                (
                    "held",
                    .object(lease.held.sorted { $0.key < $1.key }.map { ($0.key, JSONField.int($0.value)) })
                ),
                ("lapsed", .int(lease.lapsed)),
            ])
        }
        return .object([
            ("id", .int(Int(record.id))), ("playbook", .string(record.identity.playbookName)),
            ("status", .string(record.status.rawValue)),
            ("lock", record.lockPID.map { .string("\($0)@\(record.lockHost ?? "?")") } ?? .null),
            ("message", record.message.map { .string($0) } ?? .null),
            ("started_at", .string(RunsCommand.time(record.startedAt))),
            ("ended_at", record.endedAt.map { .string(RunsCommand.time($0)) } ?? .null), ("steps", .array(steps)),
            ("chunks", .array(chunks)),
        ])
    }

    static func render(_ record: RunRecord, store: RunStore) async throws -> String {
        var text = "run \(record.id) of '\(record.identity.playbookName)': \(record.status.rawValue)"
        if let pid = record.lockPID { text += ", locked by pid \(pid)@\(record.lockHost ?? "?")" }
        if let message = record.message { text += " (\(message))" }
        text += ", started \(RunsCommand.time(record.startedAt))"
        if record.endedAt != nil { text += ", ended \(RunsCommand.time(record.endedAt))" }
        text += "\n"
        var rows = [["step", "status", "done", "total", "succeeded", "failed", "rejected", "skipped", "rate", "eta"]]
        for line in try await stepLines(record, store: store) {
            rows.append([
                line.name, line.status, String(line.done), line.total.map(String.init) ?? "?",
                String(line.counts[.succeeded] ?? 0), String(line.counts[.failed] ?? 0),
                String(line.counts[.rejected] ?? 0), String(line.counts[.skipped] ?? 0),
                String(format: "%.0f/s", line.rate), line.eta.map(ProgressDisplay.clock) ?? "-",
            ])
        }
        text += TextTable.render(rows)
        for lease in try await store.leaseSummary(runID: record.id) {
            text += "chunks of '\(lease.step)': \(lease.done) of \(lease.chunks.map(String.init) ?? "?") done"
            if !lease.held.isEmpty {
                text +=
                    ", held by "
                    + lease.held.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }
                    .joined(separator: ", ")
            }
            if lease.lapsed > 0 { text += ", \(lease.lapsed) lapsed (taken over by the next claim)" }
            text += "\n"
        }
        return text
    }
}
