import Foundation
import Playbook
import Synchronization
import Testing

@testable import Runner

/// A step whose items an earlier step made (`for_each: ${{ steps.select.outputs.ids }}`): the list is read
/// from the finished step's outputs when the step starts, and from its checkpoint on resume.
@Suite struct StepOutputsTests {
    /// The items of `step`'s output `ids` (a JSON array of objects).
    static func selected(from step: String) -> ItemSource {
        .values(afterSteps: { outputs in
            guard let text = outputs[step: step]?["ids"] else { throw PlanError("step '\(step)' has no ids") }
            guard case .list(let list) = TemplateValue(output: text) else { throw PlanError("ids is not a list") }
            return list
        })
    }

    static func plan(select: ClosureAction, use: ClosureChunkAction) -> RunPlan {
        RunPlan(
            name: "outputs",
            steps: [
                StepPlan(id: "select", action: select, retry: .none),
                StepPlan(
                    id: "use", needs: ["select"], items: selected(from: "select"), action: use, concurrency: 2,
                    retry: .none, failureBudget: .count(0), batch: 10),
            ], concurrency: 4)
    }

    @Test(arguments: StoreKind.allCases)
    func aLaterStepIteratesTheListAnEarlierStepMadeAndAResumeReadsItFromTheCheckpoint(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let selections = Atomic<Int>(0)
        let select = ClosureAction { _, _ in
            selections.add(1, ordering: .relaxed)
            let ids = (1...100).map { "{\"id\":\"g\($0)\"}" }.joined(separator: ",")
            return ActionResult(outputs: ["ids": "[\(ids)]", "count": "100"])
        }
        let seen = Mutex<[String: Int]>([:])
        let gate = Mutex(false)
        func use(blockAfter: Int?) -> ClosureChunkAction {
            ClosureChunkAction { chunk, _ in
                seen.withLock { for item in chunk { $0[item.fields["id"]!, default: 0] += 1 } }
                if let blockAfter, chunk.contains(where: { Int($0.fields["id"]!.dropFirst())! > blockAfter }) {
                    while !gate.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
                    throw CancellationError()
                }
                return chunk.map { .succeeded(ActionResult(outputs: ["id": $0.fields["id"]!])) }
            }
        }
        let identity = RunIdentity(playbookName: "outputs", playbookHash: "h")
        do {
            let store = try RunStore(location: place)
            let handle = try await store.openRun(identity, mode: .resumeOrStart(acceptChanges: false))
            let engine = try Engine(
                plan: Self.plan(select: select, use: use(blockAfter: 40)), checkpoint: handle,
                options: .init(flushInterval: .milliseconds(5), gracePeriod: .milliseconds(50)))
            let running = Task { try await engine.run() }
            try await waitUntil { seen.withLock { $0.count } >= 50 }
            try await Task.sleep(for: .milliseconds(50))
            engine.stop()
            engine.stop()
            gate.withLock { $0 = true }
            #expect(try await running.value.status == .interrupted)
        }
        #expect(seen.withLock { $0["g1"] } == 1, "the items are the selected list, in its order")
        seen.withLock { $0 = [:] }
        let store = try RunStore(location: place)
        let summary = try await Engine.run(
            plan: Self.plan(select: select, use: use(blockAfter: nil)), store: store, identity: identity,
            options: .init(flushInterval: .milliseconds(5)))
        #expect(summary.status == .completed)
        #expect(summary.steps.first { $0.id == "use" }?.succeeded == 100)
        #expect(summary.steps.first { $0.id == "use" }?.total == 100, "the total is known once the list is made")
        #expect(selections.load(ordering: .relaxed) == 1, "the resume read the list from the checkpoint")
        let again = seen.withLock { $0 }
        #expect(again.keys.allSatisfy { Int($0.dropFirst())! > 40 }, "nothing finished was sent again: \(again)")
        #expect(again.count == 60)
    }

    @Test func aListThatCannotBeMadeAbortsTheRunWithItsMessage() async throws {
        let select = ClosureAction { _, _ in ActionResult(outputs: ["ids": "not a list"]) }
        let use = ClosureChunkAction { chunk, _ in chunk.map { _ in .succeeded(.empty) } }
        let summary = try await Engine(plan: Self.plan(select: select, use: use), checkpoint: nil).run()
        #expect(summary.status == .aborted)
        #expect(summary.reason?.contains("ids is not a list") == true, "\(summary.reason ?? "")")
        #expect(use.chunks.items == 0)
    }
}

/// A resumed run reads the items below its watermark as keys only (``ItemIterator/skip(upTo:keys:)``):
/// a source whose items are costly to make does not make them again.
@Suite struct ResumeSkipTests {
    /// Counts the items made whole and the items skipped.
    final class Counted: Sendable {
        let made = Atomic<Int>(0)
        let skipped = Atomic<Int>(0)
    }

    final class CountingIterator: ItemIterator {
        let total: Int
        let counted: Counted
        var index = 0
        init(total: Int, counted: Counted) {
            self.total = total
            self.counted = counted
        }
        func next() async throws -> WorkItem? {
            guard index < total else { return nil }
            index += 1
            counted.made.add(1, ordering: .relaxed)
            return WorkItem(key: "row:\(index)", fields: ["n": "\(index)"])
        }
        func skip(upTo limit: Int, keys: inout [String]) async throws {
            var added = 0
            while added < limit, index < total {
                index += 1
                added += 1
                keys.append("row:\(index)")
                counted.skipped.add(1, ordering: .relaxed)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func itemsBelowTheWatermarkAreSkippedNotMadeAgain(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let gate = Mutex(false)
        let sent = Atomic<Int>(0)
        func plan(_ counted: Counted, blockAfter: Int?) -> RunPlan {
            let action = ClosureChunkAction { chunk, _ in
                sent.add(chunk.count, ordering: .relaxed)
                if let blockAfter, chunk.contains(where: { Int($0.fields["n"]!)! > blockAfter }) {
                    while !gate.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
                    throw CancellationError()
                }
                return chunk.map { _ in .succeeded(.empty) }
            }
            return RunPlan(
                name: "skip",
                steps: [
                    StepPlan(
                        id: "s", items: ItemSource(count: 5_000) { CountingIterator(total: 5_000, counted: counted) },
                        action: action, concurrency: 2, retry: .none, failureBudget: .count(0), batch: 100)
                ], concurrency: 2)
        }
        let identity = RunIdentity(playbookName: "skip", playbookHash: "h")
        do {
            let store = try RunStore(location: place)
            let handle = try await store.openRun(identity, mode: .resumeOrStart(acceptChanges: false))
            let engine = try Engine(
                plan: plan(Counted(), blockAfter: 4_000), checkpoint: handle,
                options: .init(flushInterval: .milliseconds(5), gracePeriod: .milliseconds(50)))
            let running = Task { try await engine.run() }
            try await waitUntil { sent.load(ordering: .relaxed) >= 4_000 }
            try await Task.sleep(for: .milliseconds(100))
            engine.stop()
            engine.stop()
            gate.withLock { $0 = true }
            #expect(try await running.value.status == .interrupted)
        }
        let counted = Counted()
        let store = try RunStore(location: place)
        let summary = try await Engine.run(
            plan: plan(counted, blockAfter: nil), store: store, identity: identity,
            options: .init(flushInterval: .milliseconds(5)))
        #expect(summary.status == .completed)
        #expect(summary.succeeded == 5_000)
        let (made, skipped) = (counted.made.load(ordering: .relaxed), counted.skipped.load(ordering: .relaxed))
        #expect(made + skipped == 5_000)
        // The finished rows (4,000 at least, less what was in flight) are skipped in whole read batches.
        #expect(skipped >= 3_000, "made \(made), skipped \(skipped)")
        #expect(summary.steps[0].resumed >= skipped, "every skipped item was finished by the killed run")
    }
}
