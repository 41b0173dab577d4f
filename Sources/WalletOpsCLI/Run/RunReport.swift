import Foundation
import OMSProtocol
import Playbook
import Runner

/// The report of one run invocation, written as `<home>/reports/<run-id>.json` and `.md`: the
/// playbook, the identity (vars without secrets; every string redacted), times, per-step counts and
/// the failures (at most ``failureCap``, with the count of the rest).
struct RunReport {
    static let failureCap = 100

    let record: RunRecord
    let playbook: Playbook
    let summary: RunSummary
    let exitCode: Int32
    let failures: [ItemRecord]
    let failureTotal: Int
    let redactor: Redactor

    static func make(
        store: RunStore, runID: Int64, playbook: Playbook, summary: RunSummary, exitCode: Int32, redactor: Redactor
    )
        async throws -> RunReport?
    {
        guard let record = try await store.run(id: runID) else { return nil }
        let (failures, total) = try await store.items(runID: runID, states: [.failed, .rejected], limit: failureCap)
        return RunReport(
            record: record, playbook: playbook, summary: summary, exitCode: exitCode, failures: failures,
            failureTotal: total, redactor: redactor)
    }

    static func time(_ seconds: Double?) -> JSONField {
        guard let seconds else { return .null }
        return .string(RFC3339.format(Int64(seconds.rounded(.down))))
    }

    var json: JSONField {
        .object([
            ("run_id", .int(Int(record.id))),
            ("playbook", .object([("name", .string(playbook.name)), ("file", .string(playbook.file))])),
            (
                "identity",
                .object([
                    ("playbook_hash", .string(record.identity.playbookHash)),
                    (
                        "inputs",
                        .object(
                            record.identity.inputFingerprints.sorted { $0.key < $1.key }.map {
                                ($0.key, .string($0.value))
                            })
                    ),
                    (
                        "vars",
                        .object(record.identity.vars.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
                    ),
                ])
            ),
            ("status", .string(summary.status.rawValue)),
            ("reason", summary.reason.map { .string($0) } ?? .null),
            ("exit_code", .int(Int(exitCode))),
            ("started_at", Self.time(record.startedAt)),
            ("ended_at", Self.time(record.endedAt)),
            ("invocation_seconds", .double(summary.elapsed.secondsValue)),
            (
                "steps",
                .array(
                    summary.steps.map { step in
                        .object([
                            ("id", .string(step.id)), ("status", .string(step.status.rawValue)),
                            ("total", step.total.map { .int($0) } ?? .null), ("succeeded", .int(step.succeeded)),
                            ("failed", .int(step.failed)), ("rejected", .int(step.rejected)),
                            ("skipped", .int(step.skipped)),
                            // Items an earlier invocation finished: this one did not run them again.
                            ("resumed", .int(step.resumed)),
                            // What this invocation's action did (keys sent, requests, decryptions): on a resumed
                            // run, the work done again is here, not hidden in the totals.
                            ("work", Self.work(step)),
                        ])
                    })
            ),
            ("failures_total", .int(failureTotal)),
            ("failures_not_listed", .int(failureTotal - failures.count)),
            (
                "failures",
                .array(
                    failures.map { item in
                        .object([
                            ("step", .string(item.step)), ("key", .string(item.key)),
                            ("state", .string(item.state.rawValue)),
                            ("attempts", .int(item.attempts)), ("class", item.errorClass.map { .string($0) } ?? .null),
                            ("message", item.message.map { .string($0) } ?? .null),
                        ])
                    })
            ),
        ])
    }

    /// A step's work counts, sorted by measure.
    static func work(_ step: StepProgress) -> JSONField {
        .object(step.work.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
    }

    var markdown: String {
        var out = "# Run \(record.id): \(playbook.name)\n\n"
        out += "| | |\n|---|---|\n"
        out += "| playbook | `\(playbook.file)` |\n| hash | `\(record.identity.playbookHash)` |\n"
        for (name, value) in record.identity.inputFingerprints.sorted(by: { $0.key < $1.key }) {
            out += "| input `\(name)` | `\(value)` |\n"
        }
        for (name, value) in record.identity.vars.sorted(by: { $0.key < $1.key }) {
            out += "| var `\(name)` | `\(value)` |\n"
        }
        out += "| status | \(summary.status.rawValue)\(summary.reason.map { " (\($0))" } ?? "") |\n"
        out += "| exit code | \(exitCode) |\n"
        out += "| started | \(Self.time(record.startedAt).text(redactor)) |\n"
        out += "| ended | \(Self.time(record.endedAt).text(redactor)) |\n\n"
        out += "## Steps\n\n| step | status | total | succeeded | failed | rejected | skipped |\n"
        out += "|---|---|---:|---:|---:|---:|---:|\n"
        for step in summary.steps {
            out +=
                "| \(step.id) | \(step.status.rawValue) | \(step.total.map(String.init) ?? "?") | \(step.succeeded) | "
                + "\(step.failed) | \(step.rejected) | \(step.skipped) |\n"
        }
        for step in summary.steps where !step.work.isEmpty {
            let counts = step.work.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            out += "\nWork of `\(step.id)` in this invocation: \(counts.joined(separator: ", ")).\n"
        }
        out += "\n## Failures (\(failureTotal))\n\n"
        if failures.isEmpty {
            out += "None.\n"
        } else {
            out += "| step | key | state | attempts | class | message |\n|---|---|---|---:|---|---|\n"
            for item in failures {
                let message = (item.message ?? "").replacingOccurrences(of: "|", with: "\\|")
                out +=
                    "| \(item.step) | \(item.key) | \(item.state.rawValue) | \(item.attempts) | \(item.errorClass ?? "") | \(message) |\n"
            }
            if failureTotal > failures.count { out += "\nand \(failureTotal - failures.count) more.\n" }
        }
        return redactor.redact(out)
    }

    /// Writes both files into `folder` (created 0700); returns the Markdown file's path.
    func write(to folder: URL) throws -> String {
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let base = folder.appendingPathComponent("\(record.id)")
        try Data((json.pretty(redactor) + "\n").utf8).write(to: base.appendingPathExtension("json"))
        try Data(markdown.utf8).write(to: base.appendingPathExtension("md"))
        return base.appendingPathExtension("md").path
    }
}
