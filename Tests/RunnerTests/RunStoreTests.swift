import Foundation
import SQLiteKit
import Synchronization
import Testing

@testable import Runner

/// A pid that existed and has exited (so nothing runs under it now).
func deadPID() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    let pid = process.processIdentifier
    #expect(!RunStore.isProcessAlive(pid))
    return pid
}

@Suite struct RunStoreTests {
    let identity = RunIdentity(
        playbookName: "migrate", playbookHash: "hash-1", inputFingerprints: ["keys": "sha256:aa"], vars: ["chain": "1"])

    @Test(arguments: StoreKind.allCases) func liveLockHolderIsRefusedWithExit75(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let other = try kind.location(in: dir, name: "other.sqlite")
        let first = try RunStore(location: place)  // this live process
        let handle = try await first.openRun(identity)
        let second = try RunStore(location: place, pid: 999_999)
        do {
            _ = try await second.openRun(identity)
            Issue.record("a live lock was taken")
        } catch let error as RunStoreError {
            #expect(error.code == .lockHeld(pid: getpid(), host: RunStore.currentHost))
            #expect(error.exitCode == 75)
            #expect(error.message.contains("pid \(getpid())"))
            #expect(error.runID == handle.runID)
        }
        // A holder on another host with a fresh heartbeat is alive too.
        let remote = try RunStore(location: other, pid: 12, host: "elsewhere")
        _ = try await remote.openRun(identity)
        let local = try RunStore(location: other, staleLockAfter: .seconds(3600))
        await #expect(throws: RunStoreError.self) { try await local.openRun(identity) }
        let impatient = try RunStore(location: other, staleLockAfter: .zero)
        _ = try await impatient.openRun(identity)
    }

    @Test(arguments: StoreKind.allCases) func deadProcessLockIsTakenOver(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let dead = try deadPID()
        let crashed = try RunStore(location: place, pid: dead)
        let old = try await crashed.openRun(identity)
        let store = try RunStore(location: place)
        let found = try await store.findUnfinishedRun(playbookName: "migrate")
        #expect(found?.id == old.runID)
        #expect(found?.lockPID == dead)
        let handle = try await store.openRun(identity)
        #expect(handle.runID == old.runID)
        #expect(handle.isResumed)
        let record = try #require(try await store.run(id: handle.runID))
        #expect(record.lockPID == getpid())
        let events = try await store.events(runID: handle.runID).map(\.kind)
        #expect(events == ["started", "lock-takeover", "resumed"])
    }

    @Test(arguments: StoreKind.allCases) func otherWorkStartsANewRunAndNamesTheUnfinishedOne(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let crashed = try RunStore(location: place, pid: try deadPID())
        let old = try await crashed.openRun(identity)
        let store = try RunStore(location: place)
        var changed = identity
        changed.inputFingerprints["keys"] = "sha256:bb"
        changed.vars["chain"] = "2"
        let other = try await store.openRun(changed)
        #expect(other.runID != old.runID && !other.isResumed)
        #expect(
            other.otherUnfinished
                == [UnfinishedRun(id: old.runID, differences: ["input 'keys' changed", "variable 'chain' changed"])])
        #expect(try await store.run(id: old.runID)?.status == .running, "left as it is")
        try await other.finish(status: .interrupted, message: nil)
        // The same work again resumes its own run, not the other.
        let again = try await store.openRun(changed)
        #expect(again.runID == other.runID && again.isResumed)
        try await again.finish(status: .interrupted, message: nil)
        // Back to the first run by id: refused while the work differs, unless accepted.
        do {
            _ = try await store.openRun(changed, mode: .resume(runID: old.runID, acceptChanges: false))
            Issue.record("resumed a changed run")
        } catch let error as RunStoreError {
            #expect(error.code == .identityChanged(["input 'keys' changed", "variable 'chain' changed"]))
            #expect(error.exitCode == 2)
        }
        let accepted = try await store.openRun(changed, mode: .resume(runID: old.runID, acceptChanges: true))
        #expect(accepted.runID == old.runID && accepted.isResumed)
        #expect(try await store.run(id: old.runID)?.identity.vars == changed.vars)
        try await accepted.finish(status: .interrupted, message: nil)
        let fresh = try await store.openRun(changed, mode: .fresh)
        #expect(fresh.runID != old.runID && fresh.runID != other.runID && !fresh.isResumed)
        // Both runs now do the changed work: --fresh abandons the latest of them.
        #expect(try await store.run(id: other.runID)?.status == .abandoned, "the latest run of the same work")
        #expect(try await store.run(id: old.runID)?.status == .interrupted)
    }

    @Test(arguments: StoreKind.allCases) func varsThatDoNotChangeTheWorkNeverBlockAResume(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        var eight = identity
        eight.vars["parallel"] = "8"
        eight.looseVars = ["parallel"]
        let crashed = try RunStore(location: place, pid: try deadPID())
        let old = try await crashed.openRun(eight)
        var two = eight
        two.vars["parallel"] = "2"
        #expect(two.key == eight.key)
        let store = try RunStore(location: place)
        let resumed = try await store.openRun(two)
        #expect(resumed.runID == old.runID && resumed.isResumed && resumed.otherUnfinished.isEmpty)
        #expect(try await store.run(id: old.runID)?.identity.vars["parallel"] == "2", "the new value is kept")
    }

    @Test(arguments: StoreKind.allCases) func locksCoverTheSameWorkOrTheWholeNameWhenAsked(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let first = try RunStore(location: place)  // this live process holds run 1
        let running = try await first.openRun(identity)
        var other = identity
        other.inputFingerprints["keys"] = "sha256:cc"
        let second = try RunStore(location: place, pid: 999_999)
        do {
            _ = try await second.openRun(identity)
            Issue.record("the same work ran twice at once")
        } catch let error as RunStoreError {
            #expect(error.code == .lockHeld(pid: getpid(), host: RunStore.currentHost))
        }
        do {
            _ = try await second.openRun(other, lockScope: .name)
            Issue.record("a name-scoped lock let another run of the name start")
        } catch let error as RunStoreError {
            #expect(error.runID == running.runID)
        }
        let beside = try await second.openRun(other)
        #expect(beside.runID != running.runID, "other work runs beside it")
    }

    @Test(arguments: StoreKind.allCases) func resumeSkipsSucceededItems(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place)
        let engineBox = Mutex<Engine?>(nil)
        let firstRuns = Recorder()
        let stopper = ClosureAction { item, _ in
            if firstRuns.count("runs") == 30 { engineBox.withLock { $0 }?.stop() }
            return .empty
        }
        func plan(_ action: any Action) -> RunPlan {
            RunPlan(
                name: "migrate", steps: [StepPlan(id: "s", items: numberedItems(100), action: action, concurrency: 1)])
        }
        let handle = try await store.openRun(identity)
        let engine = try Engine(plan: plan(stopper), checkpoint: handle, options: .init(clock: ManualClock()))
        engineBox.withLock { $0 = engine }
        let first = try await engine.run()
        #expect(first.status == .interrupted)
        #expect(first.exitCode == 75)
        #expect(first.succeeded == 30)
        #expect(try await store.findUnfinishedRun(playbookName: "migrate")?.status == .interrupted)

        let secondRuns = Recorder()
        let counter = ClosureAction { item, _ in
            secondRuns.log(item.key)
            return .empty
        }
        let second = try await Engine.run(plan: plan(counter), store: store, identity: identity)
        #expect(second.runID == first.runID)
        #expect(second.status == .completed)
        #expect(second.exitCode == 0)
        #expect(second.succeeded == 100)
        #expect(second.steps[0].resumed == 30)
        let ranAgain = secondRuns.snapshot.log
        #expect(ranAgain.count == 70)
        #expect(Set(ranAgain).isDisjoint(with: (0..<30).map { "item-\($0)" }))
        #expect(try await store.itemCounts(runID: second.runID!) == [.succeeded: 100])
        #expect(try await store.findUnfinishedRun(playbookName: "migrate") == nil)
        let record = try #require(try await store.run(id: second.runID!))
        #expect(record.counts[.succeeded] == 100)
        #expect(record.lockPID == nil)
    }

    @Test(arguments: StoreKind.allCases) func inDoubtItemsAreProbedBeforeRetryExactlyOnce(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let file = dir.path("effects.txt")
        // A crashed invocation: intents for items 0..9 committed, the effect done for 0..4 only.
        let crashed = try RunStore(location: place, pid: try deadPID())
        let old = try await crashed.openRun(identity)
        try await old.write(
            (0..<10).map {
                RunHandle.Update(
                    step: "append", key: "item-\($0)", index: $0, state: .started, attempts: 1, errorClass: nil,
                    message: nil,
                    resultJSON: nil, idempotencyKey: "k\($0)")
            })
        try Data((0..<5).map { "item-\($0)\n" }.joined().utf8).write(to: URL(fileURLWithPath: file))

        let probes = Recorder()
        let append = AppendAction(path: file)
        let probing = ClosureAction(
            sideEffecting: true,
            probe: { item, context in
                probes.log(item.key)
                return try await append.probe(item, context: context)
            },
            { item, context in
                probes.count("run")
                return try await append.run(item, context: context)
            })
        let plan = RunPlan(
            name: "migrate", steps: [StepPlan(id: "append", items: numberedItems(20), action: probing, concurrency: 4)])
        let store = try RunStore(location: place)
        let summary = try await Engine.run(plan: plan, store: store, identity: identity)
        #expect(summary.runID == old.runID)
        #expect(summary.succeeded == 20)
        #expect(Set(probes.snapshot.log) == Set((0..<10).map { "item-\($0)" }))
        #expect(probes.snapshot.counts["run"] == 15)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 20)
        #expect(Set(lines) == Set((0..<20).map { "item-\($0)" }))
        let rows = try await store.items(runID: old.runID)
        #expect(rows.allSatisfy { $0.state == .succeeded && $0.idempotencyKey != nil })
        #expect(rows.first { $0.key == "item-3" }?.attempts == 1)  // resolved by the probe, not re-run
    }

    @Test(arguments: StoreKind.allCases) func unknownProbeFailsTheItemInDoubtAndRetryFailedProbesAgain(
        _ kind: StoreKind
    ) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let crashed = try RunStore(location: place, pid: try deadPID())
        let old = try await crashed.openRun(identity)
        try await old.write([
            RunHandle.Update(
                step: "s", key: "item-0", index: 0, state: .started, attempts: 1, errorClass: nil, message: nil,
                resultJSON: nil,
                idempotencyKey: "k")
        ])
        let answer = Mutex<ProbeOutcome>(.unknown)
        let runs = Recorder()
        let action = ClosureAction(sideEffecting: true, probe: { _, _ in answer.withLock { $0 } }) { item, _ in
            runs.log(item.key)
            return .empty
        }
        let plan = RunPlan(name: "migrate", steps: [StepPlan(id: "s", items: numberedItems(3), action: action)])
        let store = try RunStore(location: place)
        let first = try await Engine.run(plan: plan, store: store, identity: identity)
        #expect(first.failed == 1)
        #expect(first.exitCode == 1)
        #expect(runs.snapshot.log == ["item-1", "item-2"])
        let row = try #require(try await store.items(runID: old.runID).first { $0.key == "item-0" })
        #expect(row.state == .failed)
        #expect(row.errorClass == "inDoubt")

        answer.withLock { $0 = .done(ActionResult(outputs: ["wallet": "w-0"])) }
        let retried = try await Engine.run(plan: plan, store: store, identity: identity, mode: .retryFailed)
        #expect(retried.runID == old.runID)
        #expect(retried.exitCode == 0)
        #expect(runs.snapshot.log == ["item-1", "item-2"])  // resolved by the probe, never re-run
        let finished = try #require(try await store.items(runID: old.runID).first { $0.key == "item-0" })
        #expect(finished.state == .succeeded)
        #expect(finished.resultJSON == #"{"wallet":"w-0"}"#)
    }

    @Test(arguments: StoreKind.allCases) func retryFailedRerunsOnlyFailedItemsOfAFinishedRun(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place)
        let flaky = ClosureAction { item, _ in
            if Int(item.fields["n"]!)! % 10 == 0 { throw ActionError.permanent("down") }
            return .empty
        }
        let plan1 = RunPlan(
            name: "migrate", steps: [StepPlan(id: "s", items: numberedItems(50), action: flaky, retry: .none)])
        let first = try await Engine.run(plan: plan1, store: store, identity: identity)
        #expect(first.failed == 5)
        #expect(try await store.run(id: first.runID!)?.status == .completed)
        let runs = Recorder()
        let good = ClosureAction { item, _ in
            runs.log(item.key)
            return .empty
        }
        let plan2 = RunPlan(name: "migrate", steps: [StepPlan(id: "s", items: numberedItems(50), action: good)])
        // A plain re-run of a completed run starts a new run.
        let retried = try await Engine.run(plan: plan2, store: store, identity: identity, mode: .retryFailed)
        #expect(retried.runID == first.runID)
        #expect(Set(runs.snapshot.log) == Set(stride(from: 0, to: 50, by: 10).map { "item-\($0)" }))
        #expect(retried.exitCode == 0)
        #expect(try await store.itemCounts(runID: first.runID!) == [.succeeded: 50])
        let rerun = try await Engine.run(plan: plan2, store: store, identity: identity)
        #expect(rerun.runID != first.runID)
    }

    @Test(arguments: StoreKind.allCases) func skippedStepItemsAreRecordedAndRunOnRetry(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place)
        let healthy = Mutex(false)
        let gate = ClosureAction { _, _ in
            if !healthy.withLock({ $0 }) { throw ActionError.permanent("backend down") }
            return .empty
        }
        let plan = RunPlan(
            name: "migrate",
            steps: [
                StepPlan(id: "check", action: gate, retry: .none),
                StepPlan(id: "work", needs: ["check"], items: numberedItems(7), action: NoopAction()),
            ])
        let first = try await Engine.run(plan: plan, store: store, identity: identity)
        #expect(first.exitCode == 1)
        #expect(first.steps[1].status == .skipped)
        #expect(try await store.itemCounts(runID: first.runID!, step: "work") == [.skipped: 7])
        #expect(try await store.stepStatus(runID: first.runID!, step: "work") == "skipped")
        let skippedRow = try #require(try await store.items(runID: first.runID!, step: "work").first)
        #expect(skippedRow.message == "skipped: need 'check' failed")

        healthy.withLock { $0 = true }
        let retried = try await Engine.run(plan: plan, store: store, identity: identity, mode: .retryFailed)
        #expect(retried.runID == first.runID)
        #expect(retried.exitCode == 0)
        #expect(try await store.itemCounts(runID: first.runID!) == [.succeeded: 8])
    }

    @Test(arguments: StoreKind.allCases) func checkpointsNeverContainSecrets(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let secret = "5f1e2d3c4b5a69788796a5b4c3d2e1f0SECRET"
        let items = (0..<3).map {
            WorkItem(
                key: "k\($0)", fields: ["address": "0xabc\($0)", "privateKey": secret], secretFields: ["privateKey"])
        }
        let leaky = ClosureAction(sideEffecting: true) { item, _ in
            if item.key == "k1" { throw ActionError.permanent("import of \(item.fields["privateKey"]!) refused") }
            return ActionResult(
                outputs: item.fields.merging(["derived": "x" + item.fields["privateKey"]!]) { a, _ in a })
        }
        let store = try RunStore(location: place)
        let plan = RunPlan(
            name: "secrets", steps: [StepPlan(id: "s", items: .items(items), action: leaky, retry: .none)])
        let summary = try await Engine.run(
            plan: plan, store: store,
            identity: RunIdentity(playbookName: "secrets", playbookHash: "h", vars: ["chain": "1"]))
        #expect(summary.succeeded == 2)
        #expect(summary.failed == 1)
        let rows = try await store.items(runID: summary.runID!)
        #expect(rows.contains { $0.message?.contains(WorkItem.redactedMarker) == true })
        #expect(rows.contains { $0.resultJSON?.contains("0xabc0") == true })
        let stored = try kind.contents(of: place)
        #expect(stored.range(of: Data("0xabc0".utf8)) != nil, "the scan reads the store's rows")
        #expect(stored.range(of: Data(secret.utf8)) == nil, "secret found in the \(kind) store")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.url.path) {
            let bytes = try Data(contentsOf: dir.url.appendingPathComponent(name))
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "secret found in \(name)")
        }
    }

    @Test(arguments: StoreKind.allCases) func streamsAMillionItemsWithABoundedWindow(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let count = 200_000
        let produced = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let maxAhead = Atomic<Int>(0)
        let source = ItemSource.generated(count: count) { index in
            produced.add(1, ordering: .relaxed)
            return WorkItem(key: String(index))
        }
        let action = ClosureAction { _, _ in
            let ahead = produced.load(ordering: .relaxed) - finished.load(ordering: .relaxed)
            _ = maxAhead.max(ahead, ordering: .relaxed)
            finished.add(1, ordering: .relaxed)
            return .empty
        }
        let store = try RunStore(location: place)
        let options = Engine.Options(window: 1024)
        let plan = RunPlan(name: "big", steps: [StepPlan(id: "s", items: source, action: action, concurrency: 8)])
        let start = ContinuousClock.now
        let summary = try await Engine.run(
            plan: plan, store: store, identity: RunIdentity(playbookName: "big", playbookHash: "h"), options: options)
        let seconds = (ContinuousClock.now - start).seconds
        print(
            "engine (debug build): \(count) checkpointed items in \(seconds) s = \(Int(Double(count) / seconds)) items/s"
        )
        #expect(summary.succeeded == count)
        #expect(try await store.itemCounts(runID: summary.runID!) == [.succeeded: count])
        // Items read ahead of completion never exceed the window plus one read batch plus what the
        // workers hold (a batch of quick items each).
        #expect(maxAhead.load(ordering: .relaxed) <= 1024 + 256 + 8 * Engine.maxTake)
    }

    @Test func writeActionWritesCSVAndJSONLinesWithoutSecrets() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let items = [
            WorkItem(key: "a", fields: ["name": "x,y", "pw": "hunter2"], secretFields: ["pw"]),
            WorkItem(key: "b", fields: ["name": "say \"hi\""]),
        ]
        for format in [WriteAction.Format.csv, .jsonLines] {
            let path = dir.path("out-\(format)")
            let plan = RunPlan(
                name: "w",
                steps: [
                    StepPlan(
                        id: "s", items: .items(items),
                        action: WriteAction(path: path, format: format, columns: ["name", "pw"]))
                ])
            let summary = try await Engine(plan: plan, checkpoint: nil).run()
            #expect(summary.succeeded == 2)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!text.contains("hunter2"))
            switch format {
            case .csv:
                #expect(text == "key,name,pw\r\na,\"x,y\",[redacted]\r\nb,\"say \"\"hi\"\"\",\r\n")
            case .jsonLines:
                #expect(
                    text
                        == "{\"key\":\"a\",\"name\":\"x,y\",\"pw\":\"[redacted]\"}\n{\"key\":\"b\",\"name\":\"say \\\"hi\\\"\",\"pw\":\"\"}\n"
                )
            }
        }
    }
}
