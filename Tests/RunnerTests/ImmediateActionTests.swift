import Foundation
import Synchronization
import Testing

@testable import Runner

/// An ``ImmediateAction`` gets the outcomes (states, attempts, classes, results, retries) that the same
/// work gets through `run`, and its plain successes leave no rows once the watermark covers them; with
/// ``Engine/Options/immediateActions`` off the engine calls `run` only.
@Suite struct ImmediateActionTests {
    /// Which entry point the engine used, counted.
    final class Calls: Sendable {
        let counts = Mutex((run: 0, immediate: 0))
        func withLock<T>(_ body: (inout (run: Int, immediate: Int)) -> T) -> T { counts.withLock { body(&$0) } }
    }

    /// The scripted outcomes, the same through either entry point.
    static func outcome(_ item: WorkItem, _ context: ActionContext) throws -> ActionResult {
        switch item.key {
        case "flaky" where context.attempt < 3: throw ActionError.http(status: 429, "slow down")
        case "bad": throw ActionError.http(status: 400, "bad request")
        case "invalid": throw ActionError.rejected("address is not hex")
        case "out": return ActionResult(outputs: ["ok": item.key])
        default: return .empty
        }
    }

    /// The scripted work as an ``ImmediateAction``.
    struct ScriptedImmediate: ImmediateAction {
        let calls = Calls()
        var name: String { "scripted" }

        func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
            calls.withLock { $0.run += 1 }
            return try ImmediateActionTests.outcome(item, context)
        }

        func runImmediately(_ item: WorkItem, context: ActionContext) throws -> ActionResult {
            calls.withLock { $0.immediate += 1 }
            return try ImmediateActionTests.outcome(item, context)
        }
    }

    /// The scripted work as a plain action.
    struct Scripted: Action {
        let calls = Calls()
        var name: String { "scripted" }

        func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
            calls.withLock { $0.run += 1 }
            return try ImmediateActionTests.outcome(item, context)
        }
    }

    static let keys = (0..<3000).map { "k\($0)" } + ["flaky", "bad", "invalid", "out"]

    func run(_ action: any Action, immediateActions: Bool = true) async throws -> (
        summary: RunSummary, rows: [ItemRecord]
    ) {
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
            options: .init(clock: ManualClock(autoAdvance: true), immediateActions: immediateActions))
        return (summary, try await store.items(runID: summary.runID!))
    }

    @Test func immediateAndAsyncRunsRecordTheSameOutcomes() async throws {
        let viaRun = Scripted()
        let viaImmediate = ScriptedImmediate()
        let (asyncSummary, asyncRows) = try await run(viaRun)
        let (summary, rows) = try await run(viaImmediate)
        #expect(viaRun.calls.withLock { $0.run } == Self.keys.count + 2)
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

    /// Switched off, the engine runs an immediate action through `run` alone, with the same outcomes.
    @Test func switchedOffTheEngineCallsRunOnly() async throws {
        let action = ScriptedImmediate()
        let (summary, rows) = try await run(action, immediateActions: false)
        #expect(action.calls.withLock { $0.immediate } == 0)
        #expect(action.calls.withLock { $0.run } == Self.keys.count + 2)
        #expect(summary.status == .completed)
        let counts: [Int] = [summary.succeeded, summary.failed, summary.rejected]
        #expect(counts == [Self.keys.count - 2, 1, 1])
        let failures = rows.filter { !$0.key.hasPrefix("k") }.map { "\($0.key) \($0.state)" }.sorted()
        #expect(failures == ["bad failed", "invalid rejected", "out succeeded"])
    }

    /// The built-ins that never suspend are immediate actions; those that wait or write are not.
    @Test func theBuiltInsThatNeverSuspendAreImmediate() {
        #expect((NoopAction() as any Action) is any ImmediateAction)
        #expect((FailAction(probability: 0.5) as any Action) is any ImmediateAction)
        #expect(!((SleepAction(duration: .seconds(1)) as any Action) is any ImmediateAction))
    }
}
