import Foundation
import Synchronization
import Testing

@testable import Runner

@Suite struct EngineTests {
    @Test func stepsRunInGraphOrder() async throws {
        let recorder = Recorder()
        let action = ClosureAction { item, context in
            recorder.log("start \(context.stepID)")
            await Task.yield()
            recorder.log("end \(context.stepID)")
            return .empty
        }
        let plan = RunPlan(
            name: "order",
            steps: [
                StepPlan(id: "c", needs: ["a", "b"], items: numberedItems(5), action: action, concurrency: 3),
                StepPlan(id: "a", items: numberedItems(10), action: action, concurrency: 4),
                StepPlan(id: "b", needs: ["a"], items: numberedItems(10), action: action, concurrency: 4),
            ], concurrency: 8)
        let summary = try await Engine(plan: plan, checkpoint: nil).run()
        #expect(summary.status == .completed)
        #expect(summary.exitCode == 0)
        #expect(summary.succeeded == 25)
        let log = recorder.snapshot.log
        #expect(log.count == 50)
        let lastEndA = try #require(log.lastIndex(of: "end a"))
        let firstStartB = try #require(log.firstIndex(of: "start b"))
        let lastEndB = try #require(log.lastIndex(of: "end b"))
        let firstStartC = try #require(log.firstIndex(of: "start c"))
        #expect(lastEndA < firstStartB)
        #expect(lastEndB < firstStartC)
    }

    @Test func failedNeedSkipsDependentsAndExitsOne() async throws {
        let plan = RunPlan(
            name: "skip",
            steps: [
                StepPlan(id: "a", items: numberedItems(3), action: FailAction(probability: 1), retry: .none),
                StepPlan(id: "b", needs: ["a"], items: numberedItems(4), action: NoopAction()),
            ])
        let summary = try await Engine(plan: plan, checkpoint: nil).run()
        #expect(summary.status == .completed)
        #expect(summary.steps[0].status == .failed)
        #expect(summary.steps[1].status == .skipped)
        #expect(summary.steps[1].skipped == 4)
        #expect(summary.failed == 3)
        #expect(summary.exitCode == 1)
    }

    /// `actionsEnded` comes once, after the last action call of the last step (not between steps), and
    /// when a failed need skips the steps after it.
    @Test func actionsEndedComesOnceAfterTheLastActionCall() async throws {
        let recorder = Recorder()
        let action = ClosureAction { _, context in
            recorder.log("call \(context.stepID)")
            return .empty
        }
        var options = Engine.Options()
        options.actionsEnded = { recorder.log("ended") }
        let plan = RunPlan(
            name: "ended",
            steps: [
                StepPlan(id: "a", items: numberedItems(5), action: action, concurrency: 2),
                StepPlan(id: "b", needs: ["a"], items: numberedItems(5), action: action, concurrency: 2),
            ])
        let summary = try await Engine(plan: plan, checkpoint: nil, options: options).run()
        #expect(summary.succeeded == 10)
        let log = recorder.snapshot.log
        #expect(log.filter { $0 == "ended" }.count == 1)
        #expect(log.last == "ended")
        #expect(log.filter { $0 == "call b" }.count == 5)

        let skipped = Recorder()
        var skippedOptions = Engine.Options()
        skippedOptions.actionsEnded = { skipped.log("ended") }
        let failing = RunPlan(
            name: "ended-skip",
            steps: [
                StepPlan(id: "a", items: numberedItems(3), action: FailAction(probability: 1), retry: .none),
                StepPlan(id: "b", needs: ["a"], items: numberedItems(4), action: action),
            ])
        let failed = try await Engine(plan: failing, checkpoint: nil, options: skippedOptions).run()
        #expect(failed.steps[1].status == .skipped)
        #expect(skipped.snapshot.log == ["ended"])
    }

    @Test func concurrencyLimitsAreNeverExceeded() async throws {
        let recorder = Recorder()
        let action = ClosureAction { item, context in
            recorder.enter(context.stepID)
            for _ in 0..<Int.random(in: 1...5) { await Task.yield() }
            try await Task.sleep(for: .microseconds(50))
            recorder.leave(context.stepID)
            return .empty
        }
        let plan = RunPlan(
            name: "limits",
            steps: [
                StepPlan(id: "wide", items: numberedItems(400), action: action, concurrency: 5),
                StepPlan(id: "narrow", items: numberedItems(300), action: action, concurrency: 2),
                StepPlan(id: "solo", items: numberedItems(100), action: action, concurrency: 1),
            ], concurrency: 4)
        let summary = try await Engine(plan: plan, checkpoint: nil).run()
        #expect(summary.succeeded == 800)
        let state = recorder.snapshot
        print("max in flight: global \(state.maxGlobal), per step \(state.maxInFlight)")
        #expect(state.maxGlobal <= 4)
        #expect(state.maxInFlight["wide"]! <= 4)
        #expect(state.maxInFlight["narrow"]! <= 2)
        #expect(state.maxInFlight["solo"]! == 1)
        #expect(state.maxGlobal >= 2)  // the limit is exercised, not trivially met
        #expect(state.globalInFlight == 0)
    }

    @Test func rateLimitSpacesAttemptsOnTheInjectedClock() async throws {
        // 21 items at 10/s with a bucket of 1 and 4 workers: after the clock reaches k/10 s exactly k + 1
        // attempts have started, and the workers wait (on the injected clock) for their turn.
        let clock = ManualClock()
        let started = Atomic<Int>(0)
        let action = ClosureAction { _, _ in
            started.add(1, ordering: .relaxed)
            return .empty
        }
        let plan = RunPlan(
            name: "rate",
            steps: [
                StepPlan(
                    id: "s", items: numberedItems(21), action: action, concurrency: 4, ratePerSecond: 10, burst: 1)
            ])
        let engine = try Engine(plan: plan, checkpoint: nil, options: .init(clock: clock))
        let run = Task { try await engine.run() }
        for k in 0..<20 {
            try await waitUntil {
                started.load(ordering: .relaxed) == k + 1 && clock.sleeperCount == min(4, 20 - k)
            }
            #expect(clock.nextDeadline == .milliseconds(100 * (k + 1)))
            clock.advance(by: .milliseconds(100))
        }
        let summary = try await run.value
        #expect(summary.succeeded == 21)
        #expect(started.load(ordering: .relaxed) == 21)
        #expect(clock.now() == .seconds(2))
    }

    @Test func backoffIsFullJitterWithinTheCapsAndReproducible() async throws {
        let clock = ManualClock(autoAdvance: true)
        let policy = RetryPolicy(
            maxAttempts: 4, initialBackoff: .seconds(1), maxBackoff: .seconds(3), multiplier: 2, seed: 42)
        let attempts = Recorder()
        let action = ClosureAction { item, context in
            attempts.count(item.key)
            throw ActionError.retryable("HTTP 503")
        }
        let plan = RunPlan(
            name: "backoff", steps: [StepPlan(id: "s", items: numberedItems(1), action: action, retry: policy)])
        let summary = try await Engine(plan: plan, checkpoint: nil, options: .init(clock: clock)).run()
        #expect(summary.failed == 1)
        #expect(attempts.snapshot.counts["item-0"] == 4)
        let sleeps = clock.requestedSleeps
        #expect(sleeps.count == 3)
        let expected = (1...3).map { policy.backoff(afterAttempt: $0, key: "item-0") }
        for (got, want) in zip(sleeps, expected) { #expect(abs(got.seconds - want.seconds) < 1e-9) }
        let caps = [1.0, 2.0, 3.0]
        for (got, cap) in zip(sleeps, caps) { #expect(got.seconds >= 0 && got.seconds <= cap) }
        // Jitter: a different seed gives different waits.
        var other = policy
        other.seed = 7
        #expect((1...3).map { other.backoff(afterAttempt: $0, key: "item-0") } != expected)
        #expect(abs(clock.now().seconds - sleeps.reduce(0) { $0 + $1.seconds }) < 1e-9)
    }

    @Test func retryClassesDecideWhatIsRetried() async throws {
        let clock = ManualClock(autoAdvance: true)
        let action = ClosureAction { item, context in
            switch item.key {
            case "flaky" where context.attempt < 3: throw ActionError.http(status: 429, "slow down")
            case "bad": throw ActionError.http(status: 400, "bad request")
            case "invalid": throw ActionError.rejected("address is not hex")
            case "bug": throw CocoaError(.fileNoSuchFile)
            default: return ActionResult(outputs: ["ok": item.key])
            }
        }
        let items = ["flaky", "bad", "invalid", "bug", "fine"].map { WorkItem(key: $0) }
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(path: dir.path("runs.sqlite"))
        let plan = RunPlan(
            name: "classes",
            steps: [StepPlan(id: "s", items: .items(items), action: action, retry: RetryPolicy(maxAttempts: 5))])
        let summary = try await Engine.run(
            plan: plan, store: store, identity: RunIdentity(playbookName: "classes", playbookHash: "h"),
            options: .init(clock: clock))
        #expect(summary.succeeded == 2)
        #expect(summary.failed == 2)
        #expect(summary.rejected == 1)
        #expect(summary.exitCode == 1)
        let rows = Dictionary(uniqueKeysWithValues: try await store.items(runID: summary.runID!).map { ($0.key, $0) })
        #expect(rows["flaky"]?.state == .succeeded)
        #expect(rows["flaky"]?.attempts == 3)
        #expect(rows["flaky"]?.resultJSON == #"{"ok":"flaky"}"#)
        #expect(rows["bad"]?.state == .failed)
        #expect(rows["bad"]?.attempts == 1)
        #expect(rows["bad"]?.errorClass == "permanent")
        #expect(rows["invalid"]?.state == .rejected)
        #expect(rows["invalid"]?.message == "address is not hex")
        #expect(rows["bug"]?.state == .failed)
        #expect(rows["bug"]?.attempts == 1)
    }

    @Test func attemptTimeoutUsesTheInjectedClock() async throws {
        let clock = ManualClock()
        let action = ClosureAction { item, context in
            if item.key == "slow" { try await Task.sleep(for: .seconds(3600)) }
            return .empty
        }
        let plan = RunPlan(
            name: "timeout",
            steps: [
                StepPlan(
                    id: "s", items: .items([WorkItem(key: "fast"), WorkItem(key: "slow")]), action: action,
                    concurrency: 2, retry: .none, timeout: .seconds(5))
            ])
        let engine = try Engine(plan: plan, checkpoint: nil, options: .init(clock: clock))
        let run = Task { try await engine.run() }
        // Both attempts start a timer; "fast" finishes and cancels its own; "slow" waits on its timer.
        try await waitUntil { clock.sleeperCount == 1 }
        #expect(clock.nextDeadline == .seconds(5))
        clock.advance(by: .seconds(5))
        let summary = try await run.value
        #expect(summary.succeeded == 1)
        #expect(summary.failed == 1)
        #expect(clock.now() == .seconds(5))
    }

    @Test func failureBudgetByCountAborts() async throws {
        let plan = RunPlan(
            name: "budget",
            steps: [
                StepPlan(
                    id: "s", items: numberedItems(100), action: FailAction(probability: 1), retry: .none,
                    failureBudget: .count(5))
            ])
        let summary = try await Engine(plan: plan, checkpoint: nil).run()
        #expect(summary.status == .aborted)
        #expect(summary.failed == 6)
        #expect(summary.exitCode == 2)
        #expect(summary.reason?.contains("failure budget") == true)
    }

    @Test func failureBudgetByPercentWaitsForTheMinimumSample() async throws {
        // Items 50... fail: with 10 % over at least 20, the run aborts at the 6th failure (6 of 56).
        let failLate = ClosureAction { item, _ in
            if Int(item.fields["n"]!)! >= 50 { throw ActionError.permanent("no") }
            return .empty
        }
        let plan = RunPlan(
            name: "pct",
            steps: [
                StepPlan(
                    id: "s", items: numberedItems(100), action: failLate, retry: .none,
                    failureBudget: .percent(10, minimumSample: 20))
            ])
        let summary = try await Engine(plan: plan, checkpoint: nil).run()
        #expect(summary.status == .aborted)
        #expect(summary.failed == 6)
        #expect(summary.succeeded == 50)

        // Early failures below the minimum sample do not abort: 5 of the first 5 fail, none after.
        let failEarly = ClosureAction { item, _ in
            if Int(item.fields["n"]!)! < 5 { throw ActionError.permanent("no") }
            return .empty
        }
        let lenient = RunPlan(
            name: "pct2",
            steps: [StepPlan(id: "s", items: numberedItems(100), action: failEarly, retry: .none)],
            failureBudget: .percent(20, minimumSample: 30))
        let second = try await Engine(plan: lenient, checkpoint: nil).run()
        #expect(second.status == .completed)
        #expect(second.failed == 5)
        #expect(second.exitCode == 1)
        #expect(FailureBudget.percent(20, minimumSample: 30).isExceeded(failures: 5, finished: 5) == false)
        #expect(FailureBudget.percent(20, minimumSample: 30).isExceeded(failures: 7, finished: 30) == true)
        #expect(FailureBudget.count(0).isExceeded(failures: 1, finished: 1) == true)
    }

    @Test func gracefulStopLetsInFlightItemsFinish() async throws {
        let recorder = Recorder()
        let gate = ItemGate()
        let action = ClosureAction { item, _ in
            recorder.count("started")
            await gate.pass()
            return .empty
        }
        let plan = RunPlan(
            name: "stop", steps: [StepPlan(id: "s", items: numberedItems(1000), action: action, concurrency: 3)])
        let summary = try await gate.stop(plan, atInFlight: 3)
        #expect(summary.status == .interrupted)
        #expect(summary.exitCode == 75)
        #expect(summary.succeeded == 3)
        #expect(recorder.snapshot.counts["started"] == 3)
    }

    /// The issue-25 story: every item of the run was handed out and a stop came while they ran; they all
    /// finished within the grace period, so the run completed (exit 0), not interrupted.
    @Test func aStopWhoseGracePeriodSeesEveryItemFinishCompletes() async throws {
        let gate = ItemGate()
        let action = ClosureAction { _, _ in
            await gate.pass()
            return .empty
        }
        let plan = RunPlan(
            name: "grace",
            steps: [
                StepPlan(id: "a", items: numberedItems(3), action: action, concurrency: 3),
                StepPlan(id: "b", needs: ["a"], items: numberedItems(3), action: NoopAction()),
            ])
        let summary = try await gate.stop(plan, atInFlight: 3)
        // Step b never started (a stop starts no step), so the run is interrupted ...
        #expect(summary.status == .interrupted, "\(summary)")
        #expect(summary.steps.map(\.status) == [.succeeded, .waiting])

        // ... and with its last step's items in flight at the stop, it completed.
        let last = RunPlan(
            name: "grace", steps: [StepPlan(id: "a", items: numberedItems(3), action: action, concurrency: 3)])
        let completed = try await gate.stop(last, atInFlight: 3)
        #expect(completed.status == .completed, "\(completed)")
        #expect(completed.exitCode == 0)
        #expect(completed.succeeded == 3)
    }

    /// Reads of a source: how many `next(upTo:into:)` calls the filler made.
    final class CountedReads: ItemIterator {
        final class Calls: Sendable { let value = Atomic<Int>(0) }
        let total: Int
        var index = 0
        let calls: Calls
        init(total: Int, calls: Calls) {
            self.total = total
            self.calls = calls
        }
        func next() async throws -> WorkItem? {
            guard index < total else { return nil }
            index += 1
            return WorkItem(key: "k\(index)")
        }
        func next(upTo limit: Int, into items: inout [WorkItem]) async throws {
            calls.value.add(1, ordering: .relaxed)
            while items.count < limit, let item = try await next() { items.append(item) }
        }
    }

    /// The ``ItemIterator`` contract: a read of fewer items than asked is the end of the input, so the
    /// filler reads no more after it (a stop coming before an empty read cannot leave the step unfinished);
    /// an input that ends on a batch boundary still needs its empty read.
    @Test(arguments: [(300, 2), (256, 2), (10, 1), (0, 1)]) func aShortReadEndsTheInput(total: Int, reads: Int)
        async throws
    {
        let calls = CountedReads.Calls()
        let source = ItemSource(count: total) { CountedReads(total: total, calls: calls) }
        let plan = RunPlan(name: "reads", steps: [StepPlan(id: "s", items: source, action: NoopAction())])
        let summary = try await Engine(plan: plan, checkpoint: nil, options: .init(readBatch: 256)).run()
        #expect(summary.status == .completed && summary.succeeded == total)
        #expect(calls.value.load(ordering: .relaxed) == reads)
    }

    @Test func secondStopCancelsInFlightItems() async throws {
        let action = ClosureAction { _, _ in
            try await Task.sleep(for: .seconds(3600))
            return .empty
        }
        let plan = RunPlan(
            name: "cancel", steps: [StepPlan(id: "s", items: numberedItems(10), action: action, concurrency: 2)])
        let engine = try Engine(plan: plan, checkpoint: nil, options: .init(clock: ManualClock()))
        let run = Task { try await engine.run() }
        try await Task.sleep(for: .milliseconds(50))
        engine.stop()
        engine.stop()
        let summary = try await run.value
        #expect(summary.status == .interrupted)
        #expect(summary.done == 0)
    }

    @Test func exitCodesMapOutcomes() {
        func summary(_ status: RunStatus, failed: Int = 0, rejected: Int = 0) -> RunSummary {
            var step = StepProgress(id: "s", status: .succeeded, total: nil)
            step.succeeded = 10
            step.failed = failed
            step.rejected = rejected
            return RunSummary(runID: 1, status: status, reason: nil, steps: [step], elapsed: .zero)
        }
        #expect(summary(.completed).exitCode == 0)
        #expect(summary(.completed, failed: 1).exitCode == 1)
        #expect(summary(.completed, rejected: 1).exitCode == 1)
        #expect(summary(.aborted).exitCode == 2)
        #expect(summary(.interrupted).exitCode == 75)
        #expect(summary(.interrupted, failed: 3).exitCode == 75)
        let lock = RunStoreError(.lockHeld(pid: 1, host: "h"), runID: 1, "locked")
        #expect(lock.exitCode == 75)
    }

    @Test func progressEventsReportCounts() async throws {
        let events = Mutex<[ProgressEvent]>([])
        let plan = RunPlan(name: "progress", steps: [StepPlan(id: "s", items: numberedItems(50), action: NoopAction())])
        let summary = try await Engine(
            plan: plan, checkpoint: nil,
            options: .init(flushInterval: .milliseconds(5), progress: { event in events.withLock { $0.append(event) } })
        ).run()
        let last = try #require(events.withLock { $0.last })
        #expect(last.isFinal)
        #expect(last.steps[0].succeeded == 50)
        #expect(last.steps[0].total == 50)
        #expect(summary.steps == last.steps)
    }
}

extension RunSummary {
    var done: Int { steps.reduce(0) { $0 + $1.done } }
}

@Suite struct EngineLifecycleTests {
    @Test func stopBeforeRunEndsInterruptedAndAnEngineRunsOnce() async throws {
        let recorder = Recorder()
        let action = ClosureAction { _, _ in
            recorder.count("ran")
            return .empty
        }
        let plan = RunPlan(name: "early", steps: [StepPlan(id: "s", items: numberedItems(5), action: action)])
        let engine = try Engine(plan: plan, checkpoint: nil, options: .init(clock: ManualClock()))
        engine.stop()
        let summary = try await engine.run()
        #expect(summary.status == .interrupted)
        #expect(summary.exitCode == 75)
        #expect(recorder.snapshot.counts["ran"] == nil)
        await #expect(throws: PlanError.self) { try await engine.run() }
    }
}

@Suite struct RetryPolicyTests {
    @Test func jitterModesStayWithinTheirRanges() {
        for attempt in 1...6 {
            for key in ["a", "b", "c", "d"] {
                let full = RetryPolicy(initialBackoff: .seconds(1), maxBackoff: .seconds(10), jitter: .full)
                let equal = RetryPolicy(initialBackoff: .seconds(1), maxBackoff: .seconds(10), jitter: .equal)
                let none = RetryPolicy(initialBackoff: .seconds(1), maxBackoff: .seconds(10), jitter: .none)
                let cap = min(10, Double(1 << (attempt - 1)))
                #expect(none.backoff(afterAttempt: attempt, key: key) == .seconds(cap))
                let f = full.backoff(afterAttempt: attempt, key: key).seconds
                #expect(f >= 0 && f <= cap)
                let e = equal.backoff(afterAttempt: attempt, key: key).seconds
                #expect(e >= cap / 2 && e <= cap)
            }
        }
    }

    @Test func timeoutsRetryOnlyWhenAllowed() async throws {
        for retryTimeouts in [true, false] {
            let clock = ManualClock()
            let attempts = Recorder()
            let action = ClosureAction { item, _ in
                if attempts.count("n") == 1 { try await Task.sleep(for: .seconds(3600)) }
                return .empty
            }
            let plan = RunPlan(
                name: "t",
                steps: [
                    StepPlan(
                        id: "s", action: action,
                        retry: RetryPolicy(maxAttempts: 2, initialBackoff: .zero, retryTimeouts: retryTimeouts),
                        timeout: .seconds(1))
                ])
            let engine = try Engine(plan: plan, checkpoint: nil, options: .init(clock: clock))
            let run = Task { try await engine.run() }
            try await waitUntil { clock.sleeperCount == 1 }
            clock.advance(by: .seconds(1))
            let summary = try await run.value
            #expect(summary.succeeded == (retryTimeouts ? 1 : 0))
            #expect(attempts.snapshot.counts["n"] == (retryTimeouts ? 2 : 1))
        }
    }
}
