import Foundation
import Jobs
import OMSProtocol
import Playbook
import Runner
import Synchronization

/// Runs a prepared playbook to its end as `run`, `retry` and `due` do: opens (or resumes) the run
/// under its lock, traps SIGINT/SIGTERM, shows progress, prints the summary, writes the report, and
/// returns the exit code (0 ok, 1 items failed, 2 aborted, 75 locked or interrupted).
struct RunExecution {
    var prepared: PreparedRun
    var home: RunHome
    var mode: RunStore.OpenMode
    var context: Context
    var events: RunEventLog
    var display: ProgressDisplay.Mode
    var progressInterval: Duration
    var gracePeriod: Duration
    /// How long a claimed chunk is held without a heartbeat (a PostgreSQL store's leased steps).
    var lease: Duration
    /// The command that resumes this run, printed after an interruption.
    var resumeCommand: String

    func execute() async throws -> Int32 {
        let closing = CoresClosing(services: prepared.services)
        let result: Result<Int32, any Error>
        do {
            result = .success(try await execute(closing))
        } catch {
            result = .failure(error)
        }
        // By now the run store is closed (its references went with the call); the embedded core's log was
        // put away beside that and the run's end: the command returns once it is, never in the middle of it.
        await closing.wait()
        return try result.get()
    }

    private func execute(_ closing: CoresClosing) async throws -> Int32 {
        let store = try home.openStore()
        let playbook = prepared.playbook
        let handle: RunHandle
        do {
            if mode != .fresh, let unfinished = try await store.findUnfinishedRun(identity: prepared.identity),
                let pid = unfinished.lockPID, unfinished.lockHost == store.host, !RunStore.isProcessAlive(pid)
            {
                context.standardError.writeLine(
                    "notice: run \(unfinished.id) of '\(playbook.name)' was locked by pid \(pid)@\(store.host), "
                        + "which is no longer running; taking the lock over")
            }
            handle = try await openWithPolicy(store)
        } catch let error as RunStoreError {
            return try await refuse(error, store: store)
        }
        // What a `walletops worker` needs to make the same plan: the playbook, the vars as given, and the
        // folder their relative paths are relative to.
        var attributes = [
            "playbook": prepared.playbookURL.path, "resume": resumeCommand, "cwd": context.currentDirectory.path,
            "retry_failed": handle.retryFailed ? "true" : "false",
        ]
        for (step, total) in prepared.totals { if let total { attributes["total.\(step)"] = String(total) } }
        for (index, assignment) in prepared.varArguments.enumerated() { attributes["var.\(index)"] = assignment }
        // `retry` runs the failed items against the same core unless it is given another `--core`.
        if let core = prepared.core { attributes["core"] = core.absoluteString }
        try await store.setAttributes(runID: handle.runID, attributes)
        events.emit(
            "run-start",
            [
                "run": .int(Int(handle.runID)), "playbook": .string(playbook.name),
                "resumed": .bool(handle.isResumed), "retry_failed": .bool(handle.retryFailed),
            ])
        if handle.isResumed && !events.isJSON {
            context.standardError.writeLine("resuming run \(handle.runID) of '\(playbook.name)'")
        }
        if !handle.isResumed {
            for other in handle.otherUnfinished {
                // A run of other work is left as it is: say which, why, and how to go back to it.
                let why = other.differences.isEmpty ? "" : " (" + other.differences.joined(separator: ", ") + ")"
                context.standardError.writeLine(
                    "notice: run \(other.id) of '\(playbook.name)' is unfinished and left as it is\(why); "
                        + "run \(handle.runID) does this work. Return to it with: walletops run "
                        + "\(RunOptions.shellQuoted(prepared.playbookURL.path)) --resume \(other.id) --accept-changes")
            }
        }

        let descriptor = (context.standardOutput as? FileDescriptorOutput)?.descriptor
        let progress = ProgressDisplay(
            mode: display, output: context.standardOutput, events: events, interval: progressInterval,
            columns: { descriptor.map(ProgressDisplay.terminalColumns) ?? 80 })
        // A PostgreSQL store is shared: chunk steps are leased, so `walletops worker`s on any host can join.
        let leasing = RunStore.isPostgresURL(home.storeLocation) ? Leasing(owner: store.leaseOwner, lease: lease) : nil
        var options = Engine.Options(
            gracePeriod: gracePeriod, progress: { progress.handle($0) }, leasing: leasing,
            immediateActions: context.tuning.immediateActions)
        options.actionsEnded = { closing.start() }
        let engine = try Engine(plan: prepared.plan, checkpoint: handle, options: options)
        let output = context.standardError
        let grace = DurationText.format(gracePeriod)
        let trap = SignalTrap(
            onFirst: { number in
                // The JSON log records the stop too (its standard output holds JSON lines only).
                events.emit(
                    "signal", ["signal": .string(number == SIGINT ? "SIGINT" : "SIGTERM"), "grace": .string(grace)])
                progress.notice(
                    "received \(number == SIGINT ? "SIGINT" : "SIGTERM"): stopping; in-flight items have \(grace) "
                        + "to finish (send it again to stop at once)", to: output)
                engine.stop()
            },
            onRepeat: { _ in engine.stop() })
        let summary = try await engine.run()
        trap.cancel()

        let exitCode = summary.exitCode
        var reportPath: String?
        if let report = try await RunReport.make(
            store: store, runID: handle.runID, playbook: playbook, summary: summary, exitCode: exitCode,
            redactor: prepared.redactor)
        {
            do {
                reportPath = try report.write(to: home.reportsURL)
            } catch {
                context.standardError.writeLine("warning: cannot write the run report: \(error.localizedDescription)")
            }
        }
        // Where the operator looks: the first failed rows (step, row, class, reason) before the summary, on
        // standard error and in the JSON log, not only in the report.
        let (failures, failureTotal) =
            summary.failed > 0
            ? try await store.items(runID: handle.runID, states: [.failed], limit: Self.failuresShown) : ([], 0)
        if !failures.isEmpty {
            let redactor = prepared.redactor
            events.emit(
                "run-failures",
                [
                    "run": .int(Int(handle.runID)), "total": .int(failureTotal),
                    "failures": .array(
                        failures.map { item in
                            .object([
                                ("step", .string(item.step)), ("key", .string(item.key)),
                                ("class", item.errorClass.map { .string($0) } ?? .null),
                                ("attempts", .int(item.attempts)),
                                ("message", .string(redactor.redact(item.message ?? ""))),
                            ])
                        }),
                ])
            if !events.isJSON {
                for item in failures {
                    let key = item.key.isEmpty || item.key == ItemSource.singleKey ? "" : " \(item.key)"
                    let errorClass = item.errorClass.map { " (\($0))" } ?? ""
                    context.standardError.writeLine(
                        "failed: step '\(item.step)'\(key)\(errorClass): "
                            + redactor.redact(item.message ?? "no message"))
                }
                if failureTotal > failures.count {
                    context.standardError.writeLine(
                        "and \(failureTotal - failures.count) more failed rows: "
                            + "walletops failures \(handle.runID) --home \(home.url.path)")
                }
            }
        }
        events.emit(
            "run-end",
            [
                "run": .int(Int(handle.runID)), "status": .string(summary.status.rawValue),
                "reason": summary.reason.map { .string($0) } ?? .null, "exit_code": .int(Int(exitCode)),
                "succeeded": .int(summary.succeeded), "failed": .int(summary.failed),
                "rejected": .int(summary.rejected), "skipped": .int(summary.skipped),
                "report": reportPath.map { .string($0) } ?? .null,
            ])
        if !events.isJSON {
            context.standardOutput.write(
                prepared.redactor.redact(
                    Self.summaryTable(summary, runID: handle.runID, playbook: playbook.name, exitCode: exitCode)))
            if let reportPath { context.standardOutput.writeLine("report: \(reportPath)") }
        }
        switch summary.status {
        case .interrupted where summary.stopCause == .unauthorized:
            context.standardError.writeLine(
                "Error: \(prepared.redactor.redact(summary.reason ?? "the sign-in was refused")); run \(handle.runID) "
                    + "stopped with its checkpoints saved. Once signed in, resume with:\n  \(resumeCommand)")
        case .interrupted where summary.stoppedUnavailable:
            context.standardError.writeLine(
                "Error: \(prepared.redactor.redact(summary.reason ?? "a service is unreachable")); run \(handle.runID) "
                    + "stopped with its checkpoints saved. Resume when it is back with:\n  \(resumeCommand)")
        case .interrupted:
            context.standardError.writeLine(
                "run \(handle.runID) interrupted; its checkpoints are saved. Resume with:\n  \(resumeCommand)")
        case .aborted:
            context.standardError.writeLine(
                "run \(handle.runID) aborted: \(prepared.redactor.redact(summary.reason ?? "unknown reason")); "
                    + "fix the cause and resume with:\n  \(resumeCommand)")
        default: break
        }
        return exitCode
    }

    /// Failed rows whose reason is printed before the summary; the rest are in `walletops failures`.
    static let failuresShown = 10

    /// Opens the run, honouring the playbook's lock policy (`fail`, `skip`, `wait`).
    private func openWithPolicy(_ store: RunStore) async throws -> RunHandle {
        let policy = prepared.playbook.lock
        let deadline = policy.timeout.map { ContinuousClock.now + $0 }
        while true {
            do {
                return try await store.openRun(
                    prepared.identity, mode: mode, lockScope: policy.scope == .name ? .name : .identity)
            } catch let error as RunStoreError {
                guard case .lockHeld = error.code, policy.mode == .wait else { throw error }
                if let deadline, ContinuousClock.now >= deadline { throw error }
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func refuse(_ error: RunStoreError, store: RunStore) async throws -> Int32 {
        switch error.code {
        case .lockHeld(let pid, let host):
            var started = ""
            if let id = error.runID, let record = try await store.run(id: id) {
                started =
                    ", started at " + RFC3339.format(Int64(record.startedAt.rounded(.down)))
            }
            let holder =
                "run \(error.runID.map(String.init) ?? "?") of '\(prepared.playbook.name)' is locked by pid \(pid)@\(host)\(started)"
            if prepared.playbook.lock.mode == .skip {
                context.standardError.writeLine("\(holder); skipped (lock policy: skip)")
                return ExitCode.success.rawValue
            }
            context.standardError.writeLine("Error: \(holder); try again when it has finished")
            return ExitCode.temporaryFailure.rawValue
        case .identityChanged:
            context.standardError.writeLine(
                "Error: \(error.message)\nRe-run with --accept-changes to continue that run with the changes, "
                    + "or with --fresh to start a new run.")
            return ExitCode.aborted.rawValue
        case .noRunToRetry, .olderCheckpointFormat:
            context.standardError.writeLine("Error: \(error.message)")
            return ExitCode.failure.rawValue
        case .leaseLost:
            // Another worker holds the chunk now: this one stops, the run goes on there.
            context.standardError.writeLine("Error: \(error.message)")
            return ExitCode.temporaryFailure.rawValue
        case .database:
            context.standardError.writeLine("Error: \(error.message)")
            return ExitCode.ioError.rawValue
        }
    }

    static func summaryTable(_ summary: RunSummary, runID: Int64?, playbook: String, exitCode: Int32) -> String {
        var rows = [["step", "status", "total", "succeeded", "failed", "rejected", "skipped"]]
        for step in summary.steps {
            rows.append([
                step.id, step.status.rawValue, step.total.map(String.init) ?? "?", String(step.succeeded),
                String(step.failed), String(step.rejected), String(step.skipped),
            ])
        }
        var text =
            "run \(runID.map(String.init) ?? "-") of '\(playbook)' \(summary.status.rawValue) in "
            + String(format: "%.1fs", summary.elapsed.secondsValue) + " (exit \(exitCode))"
        if let reason = summary.reason, summary.status != .completed { text += ": \(reason)" }
        return text + "\n" + TextTable.render(rows)
    }
}

/// The run's embedded cores made ready to close (``JobServices/prepareToClose()``) once its actions have
/// ended, beside its last checkpoints, outputs, report and the run store's close, rather than after them.
final class CoresClosing: Sendable {
    private let services: JobServices
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(services: JobServices) { self.services = services }

    /// Starts the preparation, once.
    func start() {
        let services = services
        task.withLock { task in
            if task == nil { task = Task { await services.prepareToClose() } }
        }
    }

    /// Returns when the preparation, if started, is done.
    func wait() async { await task.withLock { $0 }?.value }
}

/// Plain text columns, left-aligned, two spaces apart.
enum TextTable {
    static func render(_ rows: [[String]]) -> String {
        let widths = (0..<(rows.map(\.count).max() ?? 0)).map { column in
            rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
