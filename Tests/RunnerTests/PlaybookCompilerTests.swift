import Foundation
import Playbook
import Testing

@testable import Runner

@Suite struct PlaybookCompilerTests {
    static let yaml = """
        version: 1
        name: compile-test
        concurrency: 3
        inputs:
          keys: {csv: "${{ vars.dir }}/keys.csv", columns: [id, address]}
        vars:
          dir: {type: path, required: true}
        defaults:
          timeout: 30s
          retry: {attempts: 4, backoff: {initial: 500ms, max: 20s, multiplier: 3}, jitter: equal, on: [retryable, timeout]}
          max_failures: "10%"
        steps:
          - id: prepare
            action: noop
          - id: append
            action: append
            needs: [prepare]
            for_each: keys
            concurrency: 8
            rate_limit: 50
            max_failures: 2
        """

    @Test func compilesSettingsAndRunsAPlaybookOverItsCSVInput() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let rows = (1...30).map { "\($0),0xabc\($0)" }.joined(separator: "\n")
        try Data(("id,address\n" + rows + "\n").utf8).write(to: URL(fileURLWithPath: dir.path("keys.csv")))
        let playbook = try Playbook.parse(Self.yaml, file: "compile-test.yaml")
        let vars = try playbook.resolveVars(["dir=\(dir.url.path)"])
        let effects = dir.path("effects.txt")
        let plan = try RunPlan(
            playbook: playbook, seed: 9,
            action: { step -> any Action in
                switch step.action {
                case "noop": return NoopAction()
                case "append": return AppendAction(path: effects)
                default: throw PlanError("unknown action \(step.action)")
                }
            },
            items: { step in
                guard case .input(let name) = step.forEach else { return nil }
                return .input(playbook.inputs[name]!, context: TemplateContext(vars: vars))
            })
        #expect(plan.concurrency == 3)
        #expect(plan.steps.map(\.id) == ["prepare", "append"])
        let append = plan.steps[1]
        #expect(append.needs == ["prepare"])
        #expect(append.concurrency == 3)  // capped by the playbook's concurrency
        #expect(append.ratePerSecond == 50)
        #expect(append.timeout == .seconds(30))
        #expect(append.failureBudget == .count(2))
        #expect(plan.steps[0].failureBudget == .percent(10, minimumSample: FailureBudget.defaultMinimumSample))
        #expect(
            append.retry
                == RetryPolicy(
                    maxAttempts: 4, initialBackoff: .milliseconds(500), maxBackoff: .seconds(20), multiplier: 3,
                    retryOn: [.retryable], retryTimeouts: true, jitter: .equal, seed: 9))

        let store = try RunStore(path: dir.path("runs.sqlite"))
        let identity = RunIdentity(playbook: playbook, inputFingerprints: ["keys": "test"], vars: vars)
        #expect(identity.playbookHash == playbook.hash.description)
        #expect(identity.vars["dir"] == dir.url.path)
        // The rate limit waits on an auto-advancing clock: no real sleeping.
        let clock = ManualClock(autoAdvance: true)
        let summary = try await Engine.run(plan: plan, store: store, identity: identity, options: .init(clock: clock))
        #expect(summary.exitCode == 0)
        #expect(summary.succeeded == 31)
        #expect(clock.now() >= .milliseconds(29 * 20))
        let lines = try String(contentsOfFile: effects, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 30)
        #expect(Set(lines) == Set((1...30).map { "row:\($0)" }))
        let checkpoints = try await store.items(runID: summary.runID!, step: "append")
        #expect(checkpoints.count == 30)
        #expect(checkpoints.allSatisfy { $0.state == .succeeded && $0.key.hasPrefix("row:") })
    }

    @Test func listValuesBecomeIndexedItems() async throws {
        let source = ItemSource.values([.object(["a": .string("x"), "n": .int(2)]), .string("y")])
        let iterator = source.makeIterator()
        let first = try await iterator.next()
        #expect(first == WorkItem(key: "index:1", fields: ["a": "x", "n": "2"]))
        #expect(try await iterator.next() == WorkItem(key: "index:2", fields: ["value": "y"]))
        #expect(try await iterator.next() == nil)
    }
}
