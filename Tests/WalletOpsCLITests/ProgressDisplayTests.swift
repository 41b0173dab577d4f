import Foundation
import Playbook
import Runner
import Synchronization
import Testing

@testable import WalletOpsCLI

/// The progress display: the line text (rows, percent, rate, ETA), and the JSON `progress` events
/// throttled to one per interval (time injected, no sleeping).
@Suite struct ProgressDisplayTests {
    static func step(done: Int, total: Int?) -> StepProgress {
        var step = StepProgress(id: "import", status: .running, total: total)
        step.succeeded = done
        return step
    }

    @Test func theLineShowsRowsPercentRateAndETA() {
        let line = ProgressDisplay.describe(Self.step(done: 1234, total: 50_000), rate: 5000)
        #expect(line == "import 1234/50000 (2.5%) 5000/s ETA 10s, 0 failed, 0 rejected")
        let unknown = ProgressDisplay.describe(Self.step(done: 7, total: nil), rate: 0)
        #expect(unknown == "import 7 0/s, 0 failed, 0 rejected", "no total, no rate: no percentage, no ETA")
    }

    @Test func theLiveLineIsABarThatFitsTheTerminal() {
        let step = Self.step(done: 12_500, total: 50_000)
        let line = ProgressDisplay.bar(step, rate: 5000, columns: 100)
        #expect(line == "import [######------------------] 12500/50000 25.0% 5000/s ETA 8s, 0 failed, 0 rejected")
        // Narrower: the bar gives way first, then the line is cut; it never reaches the last column.
        let narrow = ProgressDisplay.bar(step, rate: 5000, columns: 70)
        #expect(narrow == "import [#-----] 12500/50000 25.0% 5000/s ETA 8s, 0 failed, 0 rejected", "\(narrow)")
        for columns in [20, 40, 62, 70, 100] {
            #expect(ProgressDisplay.bar(step, rate: 5000, columns: columns).count <= columns - 1, "\(columns)")
        }
        #expect(
            ProgressDisplay.bar(Self.step(done: 50_000, total: 50_000), rate: 0, columns: 100).contains(
                "[" + String(repeating: "#", count: 24) + "]"))
        #expect(
            ProgressDisplay.bar(Self.step(done: 7, total: nil), rate: 0, columns: 100)
                == "import 7 0/s, 0 failed, 0 rejected")
    }

    /// A line printed during a live display (the interrupt notice) clears the live lines first, so the next
    /// redraw, which moves the cursor up over the lines it drew, cannot erase it.
    @Test func aNoticeIsPrintedAboveTheLiveLines() {
        let output = CapturedOutput()
        let display = ProgressDisplay(
            mode: .live, output: output, events: RunEventLog(output: output, isJSON: false, redactor: Redactor([:])),
            interval: .seconds(5), now: { 1000 })
        display.handle(ProgressEvent(elapsed: .seconds(1), steps: [Self.step(done: 10, total: 100)], isFinal: false))
        display.notice("received SIGINT: stopping", to: output)
        #expect(
            output.text.hasSuffix("\u{1B}[1A\r\u{1B}[Jreceived SIGINT: stopping\n"), "\(output.text.debugDescription)")
    }

    @Test func jsonProgressEventsComeAtMostOncePerInterval() throws {
        let output = CapturedOutput()
        let clock = Mutex(0.0)
        let display = ProgressDisplay(
            mode: .json, output: output,
            events: RunEventLog(output: output, isJSON: true, redactor: Redactor([:])), interval: .seconds(5),
            now: { clock.withLock { $0 } })
        // One engine snapshot every 200 ms for 12 s: at most one event per 5 s, so two.
        for tick in 0...60 {
            clock.withLock { $0 = 1000 + Double(tick) / 5 }
            display.handle(
                ProgressEvent(elapsed: .seconds(tick), steps: [Self.step(done: tick * 10, total: 1000)], isFinal: false)
            )
        }
        let events = try output.text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let progress = events.filter { $0["event"] as? String == "progress" }
        #expect(progress.count == 2, "\(output.text)")
        #expect(progress.map { $0["done"] as? Int } == [250, 500])
        #expect(progress.allSatisfy { $0["step"] as? String == "import" && $0["total"] as? Int == 1000 })
        #expect(progress.allSatisfy { $0["item_done"] == nil }, "no in-item fields any more")
        #expect(events.first?["event"] as? String == "step-start")
    }
}
