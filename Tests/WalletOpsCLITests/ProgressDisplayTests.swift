import Foundation
import Playbook
import Runner
import Synchronization
import Testing

@testable import WalletOpsCLI

/// The progress display with in-item progress: the line text, and the JSON `progress` events
/// throttled to one per interval (time injected, no sleeping).
@Suite struct ProgressDisplayTests {
    static func step(inItem: ItemProgress?) -> StepProgress {
        var step = StepProgress(id: "import", status: .running, total: 1)
        step.inItem = inItem
        return step
    }

    @Test func theLineShowsProgressWithinTheItem() {
        let line = ProgressDisplay.describe(
            Self.step(inItem: ItemProgress(done: 1200, total: 20000, unit: "rows", ratePerSecond: 350)), rate: 0)
        #expect(line == "import 0/1 (0.0%) 0/s, 0 failed, 0 rejected, in item: 1200/20000 rows (6.0%) 350/s ETA 54s")
        let several = ProgressDisplay.describe(ItemProgress(done: 7, total: nil, unit: "pages", items: 3))
        #expect(several == "in 3 items: 7 pages", "no total, no rate: no percentage, no ETA")
        #expect(!ProgressDisplay.describe(Self.step(inItem: nil), rate: 0).contains("in item"))
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
            let reading = ItemProgress(done: tick * 10, total: 1000, unit: "rows", ratePerSecond: 50)
            display.handle(ProgressEvent(elapsed: .seconds(tick), steps: [Self.step(inItem: reading)], isFinal: false))
        }
        let events = try output.text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let progress = events.filter { $0["event"] as? String == "progress" }
        #expect(progress.count == 2, "\(output.text)")
        #expect(progress.map { $0["item_done"] as? Int } == [250, 500])
        #expect(progress.allSatisfy { $0["item_unit"] as? String == "rows" && $0["item_total"] as? Int == 1000 })
        #expect(progress.allSatisfy { $0["step"] as? String == "import" && $0["total"] as? Int == 1 })
        #expect(events.first?["event"] as? String == "step-start")
    }
}
