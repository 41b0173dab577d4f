import Testing

@testable import Runner

@Suite struct GraphStateMachineTests {
    @Test func startsRootsThenDependentsWhenNeedsSucceed() {
        var machine = GraphStateMachine(steps: [("a", []), ("b", ["a"]), ("c", ["a"]), ("d", ["b", "c"])])
        #expect(machine.handle(.start) == [.startStep(0)])
        #expect(machine.handle(.stepFinished(0, succeeded: true)) == [.startStep(1), .startStep(2)])
        #expect(machine.handle(.stepFinished(2, succeeded: true)) == [])
        #expect(machine.handle(.stepFinished(1, succeeded: true)) == [.startStep(3)])
        #expect(machine.handle(.stepFinished(3, succeeded: true)) == [.finish])
    }

    @Test func failedNeedSkipsDependentsTransitively() {
        var machine = GraphStateMachine(steps: [("a", []), ("b", ["a"]), ("c", ["b"]), ("x", [])])
        #expect(machine.handle(.start) == [.startStep(0), .startStep(3)])
        #expect(
            machine.handle(.stepFinished(0, succeeded: false)) == [
                .skipStep(1, because: "need 'a' failed"), .skipStep(2, because: "need 'b' was skipped"),
            ])
        #expect(machine.handle(.stepFinished(3, succeeded: true)) == [.finish])
        #expect(machine.status == [.failed, .skipped, .skipped, .succeeded])
    }

    @Test func stopStartsNothingNewAndFinishesWhenRunningStepsReturn() {
        var machine = GraphStateMachine(steps: [("a", []), ("b", ["a"])])
        #expect(machine.handle(.start) == [.startStep(0)])
        #expect(machine.handle(.stop) == [])
        #expect(machine.handle(.stepFinished(0, succeeded: true)) == [.finish])
        #expect(machine.handle(.stepFinished(0, succeeded: true)) == [])
    }

    @Test func planValidationRejectsCyclesUnknownNeedsAndDuplicates() {
        let noop = NoopAction()
        func plan(_ steps: [(String, [String])]) -> RunPlan {
            RunPlan(name: "p", steps: steps.map { StepPlan(id: $0.0, needs: $0.1, action: noop) })
        }
        #expect(throws: PlanError.self) { try plan([("a", ["b"]), ("b", ["a"])]).validate() }
        #expect(throws: PlanError.self) { try plan([("a", ["zzz"])]).validate() }
        #expect(throws: PlanError.self) { try plan([("a", []), ("a", [])]).validate() }
        #expect(throws: PlanError.self) { try plan([("a", ["a"])]).validate() }
        #expect(throws: Never.self) { try plan([("a", []), ("b", ["a"]), ("c", ["a", "b"])]).validate() }
    }
}
