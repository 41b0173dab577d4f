import Foundation
import Synchronization
import Testing

@testable import Runner

/// An action that ``Action/runsImmediately`` gets the outcomes (states, attempts, classes, results,
/// retries) that the same work gets through `run`, and its plain successes leave no rows once the
/// watermark covers them.
@Suite struct ImmediateActionTests {
    /// The same behaviour through either entry point; counts which one the engine used.
    struct Scripted: Action {
        final class Calls: Sendable {
            let counts = Mutex((run: 0, immediate: 0))
            func withLock<T>(_ body: (inout (run: Int, immediate: Int)) -> T) -> T { counts.withLock { body(&$0) } }
        }
        let immediate: Bool
        let calls = Calls()

        init(immediate: Bool) { self.immediate = immediate }

        var name: String { "scripted" }
        var runsImmediately: Bool { immediate }

        func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
            calls.withLock { $0.run += 1 }
            return try outcome(item, context)
        }

        func runImmediately(_ item: WorkItem, context: ActionContext) throws -> ActionResult {
            calls.withLock { $0.immediate += 1 }
            return try outcome(item, context)
        }

        func outcome(_ item: WorkItem, _ context: ActionContext) throws -> ActionResult {
            switch item.key {
            case "flaky" where context.attempt < 3: throw ActionError.http(status: 429, "slow down")
            case "bad": throw ActionError.http(status: 400, "bad request")
            case "invalid": throw ActionError.rejected("address is not hex")
            case "out": return ActionResult(outputs: ["ok": item.key])
            default: return .empty
            }
        }
    }

    static let keys = (0..<3000).map { "k\($0)" } + ["flaky", "bad", "invalid", "out"]

    func run(_ action: Scripted) async throws -> (summary: RunSummary, rows: [ItemRecord]) {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(path: dir.path("runs.sqlite"))
        let plan = RunPlan(
            name: "immediate",
            steps: [
                StepPlan(
                    id: "s", items: .items(Self.keys.map { WorkItem(key: $0) }), action: action, concurrency: 8,
                    retry: RetryPolicy(maxAttempts: 5))
            ])
        let summary = try await Engine.run(
            plan: plan, store: store, identity: RunIdentity(playbookName: "immediate", playbookHash: "h"),
            options: .init(clock: ManualClock(autoAdvance: true)))
        return (summary, try await store.items(runID: summary.runID!))
    }

    @Test func immediateAndAsyncRunsRecordTheSameOutcomes() async throws {
        let viaRun = Scripted(immediate: false)
        let viaImmediate = Scripted(immediate: true)
        let (asyncSummary, asyncRows) = try await run(viaRun)
        let (summary, rows) = try await run(viaImmediate)
        #expect(viaRun.calls.withLock { $0.immediate } == 0)
        // Immediate: every first attempt without a call to `run`; the flaky item's retries go through it.
        #expect(viaImmediate.calls.withLock { $0.immediate } == Self.keys.count)
        #expect(viaImmediate.calls.withLock { $0.run } == 2)
        #expect(summary.status == .completed)
        #expect(summary.succeeded == Self.keys.count - 2)
        #expect(summary.failed == 1)
        #expect(summary.rejected == 1)
        let counts: [Int] = [summary.succeeded, summary.failed, summary.rejected]
        let asyncCounts: [Int] = [asyncSummary.succeeded, asyncSummary.failed, asyncSummary.rejected]
        #expect(counts == asyncCounts)
        let byKey = Dictionary(uniqueKeysWithValues: rows.map { ($0.key, $0) })
        // The flaky item succeeded at its third attempt with no outputs: covered by the watermark, no row.
        #expect(byKey["flaky"] == nil)
        #expect(byKey["bad"]?.errorClass == "permanent")
        #expect(byKey["invalid"]?.state == .rejected)
        #expect(byKey["out"]?.resultJSON == #"{"ok":"out"}"#)
        // Plain successes need no row once the watermark passes them; one carried past a flush (timing)
        // has a row saying it succeeded at its first attempt, on either path.
        for row in rows + asyncRows where row.key.hasPrefix("k") {
            #expect(row.state == .succeeded && row.attempts == 1, "\(row)")
        }
        let failures = rows.filter { !$0.key.hasPrefix("k") }.map { "\($0.key) \($0.state) \($0.attempts)" }
        let asyncFailures = asyncRows.filter { !$0.key.hasPrefix("k") }.map { "\($0.key) \($0.state) \($0.attempts)" }
        #expect(failures.sorted() == asyncFailures.sorted())
        #expect(failures.count == 3)
        print("immediate action: \(Self.keys.count) items, \(rows.count) rows (async path: \(asyncRows.count))")
    }
}
