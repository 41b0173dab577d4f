import Foundation
import Runner
import Synchronization

/// Renders the engine's progress events: a live line per running step redrawn in place on a
/// terminal (at most 10 times a second), a one-line summary every `interval` off a terminal (cron,
/// pipes), or step start/end events in JSON mode with a `progress` event per running step every
/// `interval`.
final class ProgressDisplay: Sendable {
    enum Mode: Sendable {
        case live, lines, json
    }

    private struct State {
        var linesDrawn = 0
        var lastDraw: Double = 0
        var lastLine: Double = 0
        var lastJSON: Double = 0
        var lastDone: [String: Int] = [:]
        var statuses: [String: StepStatus] = [:]
        var started: Set<String> = []
    }

    let mode: Mode
    let output: any OutputSink
    let events: RunEventLog
    let interval: Double
    /// Seconds on a monotonic clock (injected by tests).
    let now: @Sendable () -> Double
    private let state = Mutex(State())

    init(
        mode: Mode, output: any OutputSink, events: RunEventLog, interval: Duration,
        now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }
    ) {
        self.mode = mode
        self.output = output
        self.events = events
        self.interval = max(0.05, interval.secondsValue)
        self.now = now
    }

    func handle(_ event: ProgressEvent) {
        let now = self.now()
        state.withLock { state in
            for step in event.steps where state.statuses[step.id] != step.status {
                state.statuses[step.id] = step.status
                guard step.status != .waiting else { continue }
                // A step that finished between two snapshots still gets its start event first.
                if state.started.insert(step.id).inserted {
                    events.emit(
                        "step-start", ["step": .string(step.id), "total": step.total.map { .int($0) } ?? .null])
                }
                if step.status != .running {
                    events.emit(
                        "step-end",
                        [
                            "step": .string(step.id), "status": .string(step.status.rawValue),
                            "succeeded": .int(step.succeeded), "failed": .int(step.failed),
                            "rejected": .int(step.rejected), "skipped": .int(step.skipped),
                        ])
                }
            }
            switch mode {
            case .json:
                if state.lastJSON == 0 { state.lastJSON = now }
                guard !event.isFinal, now - state.lastJSON >= interval else { return }
                state.lastJSON = now
                for step in event.steps where step.status == .running { events.emit("progress", Self.fields(step)) }
            case .live:
                if event.isFinal {
                    clear(&state)
                } else if now - state.lastDraw >= 0.1 {
                    state.lastDraw = now
                    draw(event, state: &state)
                }
            case .lines:
                if state.lastLine == 0 { state.lastLine = now }
                guard !event.isFinal, now - state.lastLine >= interval else { return }
                let seconds = now - state.lastLine
                state.lastLine = now
                var parts: [String] = []
                for step in event.steps where step.status == .running {
                    let rate = Double(step.done - (state.lastDone[step.id] ?? step.done)) / max(seconds, 1e-3)
                    parts.append(Self.describe(step, rate: state.lastDone[step.id] == nil ? step.ratePerSecond : rate))
                }
                for step in event.steps { state.lastDone[step.id] = step.done }
                if !parts.isEmpty {
                    output.writeLine(
                        "progress \(Self.clock(event.elapsed.secondsValue)): " + parts.joined(separator: "; "))
                }
            }
        }
    }

    private func draw(_ event: ProgressEvent, state: inout State) {
        var text = state.linesDrawn > 0 ? "\u{1B}[\(state.linesDrawn)A\r" : ""
        let running = event.steps.filter { $0.status == .running }
        for step in running { text += "\u{1B}[2K" + Self.describe(step, rate: step.ratePerSecond) + "\n" }
        if running.count < state.linesDrawn { text += "\u{1B}[J" }
        state.linesDrawn = running.count
        output.write(text)
    }

    private func clear(_ state: inout State) {
        guard state.linesDrawn > 0 else { return }
        output.write("\u{1B}[\(state.linesDrawn)A\r\u{1B}[J")
        state.linesDrawn = 0
    }

    /// The fields of a JSON `progress` event: the step's counts, and its work so far in this invocation
    /// (`work`, when the action counts any: docs/engine.md "Work counts").
    static func fields(_ step: StepProgress) -> [String: JSONField] {
        var fields: [String: JSONField] = [
            "step": .string(step.id), "done": .int(step.done), "total": step.total.map { .int($0) } ?? .null,
            "succeeded": .int(step.succeeded), "failed": .int(step.failed), "rejected": .int(step.rejected),
            "rate": .double(step.ratePerSecond),
        ]
        if !step.work.isEmpty { fields["work"] = RunReport.work(step) }
        return fields
    }

    /// `import 1234/50000 (2.5%) 5000/s ETA 10s, 0 failed, 0 rejected`.
    static func describe(_ step: StepProgress, rate: Double) -> String {
        var text = "\(step.id) \(step.done)"
        if let total = step.total, total > 0 {
            text += "/\(total) (\(String(format: "%.1f", Double(step.done) * 100 / Double(total)))%)"
        }
        text += " \(Int(rate.rounded()))/s"
        if let total = step.total, rate > 0, total > step.done {
            text += " ETA " + clock(Double(total - step.done) / rate)
        }
        text += ", \(step.failed) failed, \(step.rejected) rejected"
        return text
    }

    /// `1h02m03s`, `4m05s`, `12s`.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        if h > 0 { return String(format: "%dh%02dm%02ds", h, m, s) }
        if m > 0 { return String(format: "%dm%02ds", m, s) }
        return "\(s)s"
    }
}

extension Duration {
    /// The duration in seconds (named apart from other modules' `seconds` helpers).
    var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
