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

    @Test func aLaterStepIteratesTheListAnEarlierStepMadeAndAResumeReadsItFromTheCheckpoint() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
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
            let store = try RunStore(path: dir.path("runs.sqlite"))
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
        let store = try RunStore(path: dir.path("runs.sqlite"))
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
