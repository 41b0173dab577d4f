import Foundation
import Synchronization
import Testing

@testable import Runner

/// Progress within an item (`ActionContext.progress`): the worker slot, combining readings, the
/// ticker's rate and checkpoint throttle (driven with explicit times), and the engine end to end.
@Suite struct ItemProgressTests {
    @Test func aSlotShowsOnlyTheCurrentItemsLatestReport() {
        let slot = ItemProgressSlot()
        slot.report(serial: 4, done: 1, total: 10, unit: "rows")
        #expect(slot.read() == nil, "no item running")
        slot.begin(4)
        #expect(slot.read() == ItemProgress(done: 1, total: 10, unit: "rows"))
        slot.report(serial: 4, done: 7, total: 10, unit: "rows")
        #expect(slot.read()?.done == 7, "the latest report wins")
        slot.end()
        slot.begin(5)
        #expect(slot.read() == nil, "the next item starts without the last one's reading")
        slot.report(serial: 4, done: 9, total: 10, unit: "rows")
        #expect(slot.read() == nil, "a straggling report of a finished item is ignored")
        slot.report(serial: 5, done: 2, total: nil, unit: "pages")
        #expect(slot.read() == ItemProgress(done: 2, total: nil, unit: "pages"))
    }

    @Test func readingsOfSeveralItemsCombineByUnit() throws {
        let combined = try #require(
            ItemProgress.combined([
                ItemProgress(done: 3, total: 10, unit: "rows"), ItemProgress(done: 5, total: 20, unit: "rows"),
                ItemProgress(done: 100, total: nil, unit: "pages"),
            ]))
        #expect(combined == ItemProgress(done: 8, total: 30, unit: "rows", items: 2))
        let unknownTotal = try #require(
            ItemProgress.combined([
                ItemProgress(done: 3, total: 10, unit: "rows"), ItemProgress(done: 5, total: nil, unit: "rows"),
            ]))
        #expect(unknownTotal.total == nil && unknownTotal.done == 8)
        #expect(ItemProgress.combined([]) == nil)
    }

    @Test func theTrackerSmoothsTheRateAndThrottlesCheckpointWrites() throws {
        var tracker = ItemProgressTracker(steps: 2, interval: .seconds(2))
        func reading(_ done: Int) -> ItemProgress { ItemProgress(done: done, total: 1000, unit: "rows") }

        var (progress, write) = tracker.update(0, reading(10), now: .seconds(100))
        #expect(write, "the first reading is written at once")
        #expect(progress?.ratePerSecond == 0, "no rate from one reading")

        (progress, write) = tracker.update(0, reading(20), now: .seconds(101))
        #expect(!write, "a change within the interval waits")
        let first = try #require(progress?.ratePerSecond)
        #expect(abs(first - 10) < 1e-9, "the first rate is the instant one: 10 rows in 1 s")

        (progress, write) = tracker.update(0, reading(40), now: .seconds(102))
        #expect(write, "the interval has passed")
        let second = try #require(progress?.ratePerSecond)
        #expect(second > 10 && second < 20, "smoothed between the old rate and the instant 20/s: \(second)")

        (_, write) = tracker.update(0, reading(40), now: .seconds(110))
        #expect(!write, "an unchanged reading is not written again")
        (_, write) = tracker.update(1, reading(1), now: .seconds(110))
        #expect(write, "steps are throttled apart")

        (progress, write) = tracker.update(0, nil, now: .milliseconds(110_100))
        #expect(write && progress == nil, "a cleared reading is written at once")
        (progress, _) = tracker.update(0, reading(5), now: .seconds(111))
        #expect(progress?.ratePerSecond == 0, "a new item starts without the old rate")
    }

    @Test func theEngineReportsAndCheckpointsProgressWithinARunningItem() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(path: dir.path("runs.sqlite"))
        let handle = try await store.openRun(RunIdentity(playbookName: "inner", playbookHash: "h"))
        let release = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let released = Mutex(false)
        let action = ClosureAction { _, context in
            context.progress(done: 1, total: 40, unit: "rows")
            context.progress(done: 3, total: 40, unit: "rows")
            await withCheckedContinuation { continuation in
                let now = released.withLock { done in
                    if done { return true }
                    release.withLock { $0 = continuation }
                    return false
                }
                if now { continuation.resume() }
            }
            return .empty
        }
        let events = Mutex<[ProgressEvent]>([])
        let plan = RunPlan(name: "inner", steps: [StepPlan(id: "import", items: .single, action: action)])
        let engine = try Engine(
            plan: plan, checkpoint: handle,
            options: .init(
                flushInterval: .milliseconds(5), progress: { event in events.withLock { $0.append(event) } },
                itemProgressCheckpointInterval: .zero))
        let run = Task { try await engine.run() }

        try await waitUntil {
            events.withLock { $0.contains { $0.steps[0].inItem?.done == 3 } }
        }
        let shown = try #require(events.withLock { $0.last { $0.steps[0].inItem != nil } })
        #expect(shown.steps[0].inItem == ItemProgress(done: 3, total: 40, unit: "rows"))
        #expect(shown.steps[0].done == 0, "the item itself has not finished")
        var stored: [String: (progress: ItemProgress, at: Double)] = [:]
        let deadline = Date().addingTimeInterval(120)
        while stored["import"] == nil && Date() < deadline {
            stored = try await store.itemProgress(runID: handle.runID)
            if stored["import"] == nil { try await Task.sleep(for: .milliseconds(1)) }
        }
        let checkpointed = try #require(stored["import"])
        #expect(checkpointed.progress.done == 3 && checkpointed.progress.total == 40)
        #expect(checkpointed.progress.unit == "rows" && checkpointed.progress.items == 1)
        #expect(checkpointed.at > 0)

        released.withLock { $0 = true }
        release.withLock { $0?.resume() }
        let summary = try await run.value
        #expect(summary.succeeded == 1)
        #expect(summary.steps[0].inItem == nil, "an ended item leaves no progress behind")
        #expect(try await store.itemProgress(runID: handle.runID).isEmpty, "the step's end clears the checkpoint")
    }
}
