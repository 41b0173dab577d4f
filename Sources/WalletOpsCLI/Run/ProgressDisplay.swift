import Foundation
import Runner
import Synchronization

/// Renders the engine's progress events: a live line per running step redrawn in place on a
/// terminal (at most 10 times a second: a bar, rows, percent, rate and ETA, cut to the terminal's width),
/// a one-line summary every `interval` off a terminal (cron, pipes), or step start/end events in JSON mode
/// with a `progress` event per running step every `interval`. Lines printed while it runs go through
/// ``notice(_:to:)``, so a redraw never overwrites them.
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
    /// The terminal's width in columns, asked at every draw (a window may be resized).
    let columns: @Sendable () -> Int
    private let state = Mutex(State())

    init(
        mode: Mode, output: any OutputSink, events: RunEventLog, interval: Duration,
        now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime },
        columns: @escaping @Sendable () -> Int = { 80 }
    ) {
        self.mode = mode
        self.output = output
        self.events = events
        self.interval = max(0.05, interval.secondsValue)
        self.now = now
        self.columns = columns
    }

    /// The width of the terminal on `descriptor`, 80 when it does not say (a pseudo-terminal without a size).
    static func terminalColumns(_ descriptor: Int32) -> Int {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Writes `text` as a line to `sink` where the operator sees it: on a terminal the live lines are
    /// cleared first (the next event draws them again below it), since a redraw moves the cursor up over
    /// whatever was printed after them and would erase the text.
    func notice(_ text: String, to sink: any OutputSink) {
        state.withLock { state in
            if mode == .live {
                clear(&state)
                sink.writeLine(text)
            } else {
                // Off a terminal the line starts on its own even after a partial line (a `^C` echoed).
                sink.writeLine("\n" + text)
            }
        }
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
        let width = columns()
        for step in running { text += "\u{1B}[2K" + Self.bar(step, rate: step.ratePerSecond, columns: width) + "\n" }
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

    /// The live line: `import [######--------------] 1234/50000 2.5% 5000/s ETA 10s, 0 failed, 0 rejected`,
    /// the bar narrowed (then the line cut) to fit in `columns - 1`, so it never wraps: a wrapped line
    /// would break the redraw in place. Without a total, ``describe(_:rate:)``'s text.
    static func bar(_ step: StepProgress, rate: Double, columns: Int) -> String {
        guard let total = step.total, total > 0 else { return String(describe(step, rate: rate).prefix(columns - 1)) }
        var rest = " \(step.done)/\(total) \(String(format: "%.1f", Double(step.done) * 100 / Double(total)))%"
        rest += " \(Int(rate.rounded()))/s"
        if rate > 0, total > step.done { rest += " ETA " + clock(Double(total - step.done) / rate) }
        rest += ", \(step.failed) failed, \(step.rejected) rejected"
        let room = columns - 1 - step.id.count - 3 - rest.count
        let cells = min(barCells, room)
        guard cells >= 5 else { return String((step.id + rest).prefix(columns - 1)) }
        let filled = min(cells, step.done * cells / total)
        return step.id + " [" + String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled)
            + "]" + rest
    }

    /// The cells of a live line's bar when the terminal is wide enough.
    static let barCells = 24

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
