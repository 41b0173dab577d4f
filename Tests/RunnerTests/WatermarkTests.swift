import Foundation
import SQLiteKit
import Synchronization
import Testing

@testable import Runner

/// The watermark checkpoint layout (docs/engine.md "Checkpoint layout"): in-order successes cost no
/// row, exceptions keep theirs, and resume decides from the watermark plus the exception rows.
@Suite struct WatermarkTests {
    static let childVariable = "WALLETOPS_WATERMARK_CHILD_DIR"
    static let itemCount = 5_000
    static let stuck = 7
    static let identity = RunIdentity(playbookName: "marks", playbookHash: "h")

    static func plan(_ action: any Action, count: Int = itemCount, concurrency: Int = 4) -> RunPlan {
        RunPlan(
            name: "marks",
            steps: [StepPlan(id: "s", items: numberedItems(count), action: action, concurrency: concurrency)])
    }

    /// The keys hash of the plan's items `item-0 ..< item-<count>`, as a watermark at `count` records it.
    static func keysHash(below count: Int) -> UInt64 {
        (0..<count).reduce(KeysHash.initial) { KeysHash.adding("item-\($1)", to: $0) }
    }

    /// A checkpoint row of item `index` in `state`, as a crashed run would have flushed it.
    static func exceptionRow(_ index: Int, _ state: ItemState) -> RunHandle.Update {
        RunHandle.Update(
            step: "s", key: "item-\(index)", index: index, state: state, attempts: 1, errorClass: "permanent",
            message: nil, resultJSON: nil, idempotencyKey: nil)
    }

    static func watermark(_ store: RunStore, runID: Int64, step: String = "s") async throws -> Int {
        try await store.queue.read { db in
            let value = try db.scalarInt(
                "SELECT watermark FROM step_marks WHERE run_id = ? AND step = ?", [.integer(runID), .text(step)])
            return value.map { Int($0) } ?? 0
        }
    }

    /// The child: item `stuck` never finishes, nor do items past 80%, so the others complete out of
    /// order above a watermark pinned at `stuck`, and the child is still running when it is killed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil))
    func outOfOrderChild() async throws {
        let dir = ProcessInfo.processInfo.environment[Self.childVariable]!
        let action = ClosureAction { item, _ in
            let index = Int(item.fields["n"] ?? "") ?? 0
            if index == Self.stuck || index >= Self.itemCount * 4 / 5 { try await Task.sleep(for: .seconds(3600)) }
            return .empty
        }
        let store = try RunStore(path: dir + "/runs.sqlite")
        _ = try await Engine.run(plan: Self.plan(action), store: store, identity: Self.identity)
    }

    @Test func outOfOrderCompletionAboveTheWatermarkThenSigkill() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let child = try ChildTest.start(
            "outOfOrderChild", setting: Self.childVariable, to: dir.url.path, log: dir.path("child.log"))
        let store = try RunStore(path: dir.path("runs.sqlite"))
        func rowsSoFar() async -> Int {
            guard let run = try? await store.findUnfinishedRun(playbookName: "marks") else { return 0 }
            return (try? await store.itemCounts(runID: run.id)[.succeeded]) ?? 0
        }
        let deadline = Date().addingTimeInterval(120)
        while await rowsSoFar() < 1_000, child.isRunning, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(child.isRunning, "the child ended before it could be killed")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)

        let before = try #require(try await store.findUnfinishedRun(playbookName: "marks"))
        let mark = try await Self.watermark(store, runID: before.id)
        #expect(mark == Self.stuck, "the stuck item pins the watermark")
        let rows = try await store.items(runID: before.id)
        #expect(rows.allSatisfy { $0.state == .succeeded })
        let rowKeys = Set(rows.map(\.key))
        #expect(!rowKeys.contains("item-\(Self.stuck)"))
        #expect(rowKeys.count + mark >= 1_000, "out-of-order successes above the watermark have rows")
        let finished = rowKeys.union((0..<mark).map { "item-\($0)" })
        #expect(try await store.itemCounts(runID: before.id) == [.succeeded: finished.count])

        let ran = Recorder()
        let counting = ClosureAction { item, _ in
            ran.log(item.key)
            return .empty
        }
        let summary = try await Engine.run(plan: Self.plan(counting), store: store, identity: Self.identity)
        print("killed with watermark \(mark) and \(rowKeys.count) rows above it; resume ran \(ran.snapshot.log.count)")
        #expect(summary.runID == before.id)
        #expect(summary.exitCode == 0)
        #expect(summary.succeeded == Self.itemCount)
        let again = Set(ran.snapshot.log)
        #expect(again.count == ran.snapshot.log.count, "no item ran twice on resume")
        #expect(again.isDisjoint(with: finished), "no finished item ran again")
        #expect(again.union(finished) == Set((0..<Self.itemCount).map { "item-\($0)" }), "no item skipped")
        #expect(again.contains("item-\(Self.stuck)"))
        #expect(try await Self.watermark(store, runID: before.id) == Self.itemCount)
        #expect(try await store.itemCounts(runID: before.id) == [.succeeded: Self.itemCount])
    }

    @Test(arguments: StoreKind.allCases) func inOrderSuccessesWriteNoRowsAndTheWatermarkAdvancesAcrossFlushes(
        _ kind: StoreKind
    ) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place)
        let engineBox = Mutex<Engine?>(nil)
        let seen = Recorder()
        let stopper = ClosureAction { _, _ in
            if seen.count("runs") == 250 { engineBox.withLock { $0 }?.stop() }
            return .empty
        }
        let handle = try await store.openRun(Self.identity)
        // Batches of 32 outcomes: the watermark moves in the same transaction as each batch.
        let options = Engine.Options(clock: ManualClock(), flushBatch: 32, readBatch: 16, window: 16)
        let engine = try Engine(
            plan: Self.plan(stopper, count: 1_000, concurrency: 1), checkpoint: handle, options: options)
        engineBox.withLock { $0 = engine }
        let first = try await engine.run()
        #expect(first.status == .interrupted)
        #expect(first.succeeded == 250)
        #expect(try await Self.watermark(store, runID: handle.runID) == 250)
        #expect(try await store.items(runID: handle.runID).isEmpty, "in-order successes need no row")
        #expect(try await store.itemCounts(runID: handle.runID) == [.succeeded: 250])
        #expect(try await store.stepCounts(runID: handle.runID)["s"]?.counts == [.succeeded: 250])

        let ran = Recorder()
        let counting = ClosureAction { item, _ in
            ran.log(item.key)
            return .empty
        }
        let second = try await Engine.run(
            plan: Self.plan(counting, count: 1_000, concurrency: 1), store: store, identity: Self.identity,
            options: options)
        #expect(second.exitCode == 0)
        #expect(second.steps[0].resumed == 250)
        #expect(ran.snapshot.log == (250..<1_000).map { "item-\($0)" })
        #expect(try await Self.watermark(store, runID: handle.runID) == 1_000)
        #expect(try await store.items(runID: handle.runID).isEmpty)
        #expect(try await store.itemCounts(runID: handle.runID) == [.succeeded: 1_000])
        #expect(try #require(try await store.run(id: handle.runID)).counts[.succeeded] == 1_000)
    }

    @Test(arguments: StoreKind.allCases) func aFailedItemBelowLaterSuccessesKeepsItsRowAndIsRetried(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place)
        let broken = Mutex(true)
        let ran = Recorder()
        let action = ClosureAction { item, _ in
            ran.log(item.key)
            if item.key == "item-5" && broken.withLock({ $0 }) { throw ActionError.permanent("no such wallet") }
            return .empty
        }
        let first = try await Engine.run(plan: Self.plan(action, count: 100), store: store, identity: Self.identity)
        #expect(first.exitCode == 1)
        let runID = try #require(first.runID)
        #expect(try await Self.watermark(store, runID: runID) == 100, "a failed item is finished: it does not pin")
        let rows = try await store.items(runID: runID)
        #expect(rows.map(\.key) == ["item-5"])
        #expect(rows.first?.state == .failed)
        #expect(try await store.itemCounts(runID: runID) == [.succeeded: 99, .failed: 1])
        #expect(try await store.items(runID: runID, states: [.failed], limit: 10).total == 1)

        broken.withLock { $0 = false }
        let before = ran.snapshot.log.count
        let retried = try await Engine.run(
            plan: Self.plan(action, count: 100), store: store, identity: Self.identity, mode: .retryFailed)
        #expect(retried.exitCode == 0)
        #expect(Array(ran.snapshot.log.dropFirst(before)) == ["item-5"])
        #expect(try await store.items(runID: runID).map(\.state) == [.succeeded])
        #expect(try await store.itemCounts(runID: runID) == [.succeeded: 100])
    }

    @Test(arguments: StoreKind.allCases) func resumeReadsExceptionRowsAboveAndBelowTheWatermark(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let crashed = try RunStore(location: place, pid: try deadPID())
        let old = try await crashed.openRun(Self.identity)
        let keysHash = Self.keysHash(below: 10)
        let exceptions = [
            Self.exceptionRow(3, .failed), Self.exceptionRow(4, .rejected), Self.exceptionRow(12, .succeeded),
            Self.exceptionRow(15, .started),
        ]
        try await old.flush { (exceptions, ["s": RunHandle.Mark(watermark: 10, keysHash: keysHash)], []) }
        #expect(
            try await crashed.itemCounts(runID: old.runID) == [.succeeded: 9, .failed: 1, .rejected: 1, .started: 1])

        let ran = Recorder()
        let counting = ClosureAction { item, _ in
            ran.log(item.key)
            return .empty
        }
        let store = try RunStore(location: place)
        let summary = try await Engine.run(plan: Self.plan(counting, count: 20), store: store, identity: Self.identity)
        #expect(summary.runID == old.runID)
        #expect(Set(ran.snapshot.log) == Set([10, 11, 13, 14, 15, 16, 17, 18, 19].map { "item-\($0)" }))
        #expect(summary.succeeded == 18)
        #expect(summary.failed == 1)
        #expect(summary.rejected == 1)
        #expect(summary.steps[0].resumed == 11)
        #expect(try await store.itemCounts(runID: old.runID) == [.succeeded: 18, .failed: 1, .rejected: 1])
    }

    /// The skip below the watermark reads the rows that did not succeed a window at a time
    /// (``Engine/skipWindowPositions``): rows in the first window, in the second, and one on the window's edge
    /// are counted, in read batches of 4, and nothing below the watermark runs again.
    @Test(arguments: StoreKind.allCases) func theSkipBelowTheWatermarkCountsExceptionRowsInEveryWindow(
        _ kind: StoreKind
    ) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let crashed = try RunStore(location: place, pid: try deadPID())
        let old = try await crashed.openRun(Self.identity)
        let window = Engine.skipWindowPositions
        let watermark = window + 20
        let keysHash = Self.keysHash(below: watermark)
        let exceptions = [
            Self.exceptionRow(1, .rejected), Self.exceptionRow(2, .succeeded), Self.exceptionRow(window - 1, .failed),
            Self.exceptionRow(window, .rejected),
            Self.exceptionRow(window + 9, .failed), Self.exceptionRow(watermark + 1, .rejected),
        ]
        try await old.flush { (exceptions, ["s": RunHandle.Mark(watermark: watermark, keysHash: keysHash)], []) }

        let ran = Recorder()
        let counting = ClosureAction { item, _ in
            ran.log(item.key)
            return .empty
        }
        let store = try RunStore(location: place)
        var options = Engine.Options()
        options.readBatch = 4
        let summary = try await Engine.run(
            plan: Self.plan(counting, count: watermark + 4), store: store, identity: Self.identity, options: options)
        #expect(summary.runID == old.runID)
        #expect(ran.snapshot.log.sorted() == [0, 2, 3].map { "item-\(watermark + $0)" })
        #expect(summary.rejected == 3)
        #expect(summary.failed == 2)
        #expect(summary.succeeded == watermark + 4 - 5)
        #expect(summary.steps[0].resumed == watermark + 1)
    }

    @Test(arguments: StoreKind.allCases) func anInputChangedUnderTheWatermarkIsRefusedNotSkipped(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place, pid: try deadPID())
        let old = try await store.openRun(Self.identity)
        try await old.flush { ([], ["s": RunHandle.Mark(watermark: 10, keysHash: 42)], []) }
        let ran = Recorder()
        let counting = ClosureAction { item, _ in
            ran.log(item.key)
            return .empty
        }
        let summary = try await Engine.run(
            plan: Self.plan(counting, count: 20), store: try RunStore(location: place),
            identity: Self.identity)
        #expect(summary.status == .aborted)
        #expect(summary.reason?.contains("start the run fresh") == true)
        #expect(ran.snapshot.log.isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func aRunFromTheOlderRowPerItemFormatIsRefusedWithAClearMessage(
        _ kind: StoreKind
    ) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let crashed = try RunStore(location: place, pid: try deadPID())
        let old = try await crashed.openRun(Self.identity)
        try await crashed.queue.write { db in
            try db.execute(
                "INSERT INTO items(run_id, step, item_key, state, updated_at) VALUES (?, 's', 'item-0', 'succeeded', 0)",
                [.integer(old.runID)])
        }
        let store = try RunStore(location: place)
        #expect(try await store.itemCounts(runID: old.runID) == [.succeeded: 1], "its counts still read")
        do {
            _ = try await store.openRun(Self.identity)
            Issue.record("an older-format run was resumed")
        } catch let error as RunStoreError {
            #expect(error.code == .olderCheckpointFormat)
            #expect(error.message.contains("older walletops"))
            #expect(error.message.contains("start it fresh"))
        }
        let fresh = try await store.openRun(Self.identity, mode: .fresh)
        #expect(fresh.runID != old.runID)
    }
}

extension WatermarkTests {
    /// Eight workers taking quick items in batches finish them out of order all the time; the carried
    /// successes are covered by the next flush's watermark, so almost none needs a row.
    @Test(arguments: StoreKind.allCases) func quickItemsOnEightWorkersWriteFewRows(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place)
        let count = 50_000
        let summary = try await Engine.run(
            plan: Self.plan(NoopAction(), count: count, concurrency: 8), store: store, identity: Self.identity)
        #expect(summary.succeeded == count)
        let rows = try await store.items(runID: summary.runID!).count
        print("\(count) quick items on 8 workers: \(rows) rows")
        #expect(rows < count / 100, "\(rows) rows")
        #expect(try await Self.watermark(store, runID: summary.runID!) == count)
    }
}

extension WatermarkTests {
    /// A graceful stop while workers hold batches of quick side-effecting items: every item that ran has
    /// its outcome, every intent of an item that never ran is withdrawn to `pending`, none is left in
    /// doubt, and the resume runs exactly the rest.
    @Test(arguments: StoreKind.allCases) func aStopWhileWorkersHoldBatchesLeavesNothingInDoubt(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place)
        let engineBox = Mutex<Engine?>(nil)
        let ran = Recorder()
        let action = ClosureAction(sideEffecting: true, probe: { _, _ in .notDone }) { item, _ in
            ran.log(item.key)
            if ran.count("runs") == 3_000 { engineBox.withLock { $0 }?.stop() }
            return .empty
        }
        let handle = try await store.openRun(Self.identity)
        let engine = try Engine(plan: Self.plan(action, count: 20_000, concurrency: 8), checkpoint: handle)
        engineBox.withLock { $0 = engine }
        let first = try await engine.run()
        #expect(first.status == .interrupted)
        let ranFirst = Set(ran.snapshot.log)
        #expect(ranFirst.count == ran.snapshot.log.count)
        let counts = try await store.itemCounts(runID: handle.runID)
        #expect(counts[.started] == nil, "nothing left in doubt: \(counts)")
        #expect(counts[.succeeded] == ranFirst.count, "every item that ran has its outcome: \(counts)")

        let again = Recorder()
        let counting = ClosureAction(sideEffecting: true, probe: { _, _ in .notDone }) { item, _ in
            again.log(item.key)
            return .empty
        }
        let second = try await Engine.run(
            plan: Self.plan(counting, count: 20_000, concurrency: 8), store: store, identity: Self.identity)
        #expect(second.exitCode == 0)
        let ranSecond = Set(again.snapshot.log)
        #expect(ranSecond.isDisjoint(with: ranFirst), "no item ran twice")
        #expect(ranSecond.count + ranFirst.count == 20_000, "no item skipped")
    }
}
