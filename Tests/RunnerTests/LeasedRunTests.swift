import Foundation
import Synchronization
import Testing

@testable import Runner

/// Chunk steps shared through the run store (Engine+Leases.swift): several engines on one run, each
/// item worked once, the outputs assembled in input order, a dead holder's chunk taken over and probed.
@Suite struct LeasedRunTests {
    /// The effects an action had, by item key: a second effect for a key is a duplicate.
    final class Effects: Sendable {
        private let state = Mutex<[String: Int]>([:])
        func add(_ keys: [String]) { state.withLock { for key in keys { $0[key, default: 0] += 1 } } }
        var counts: [String: Int] { state.withLock { $0 } }
        func contains(_ key: String) -> Bool { state.withLock { $0[key] != nil } }
    }

    static func plan(_ action: ClosureChunkAction, items: Int, batch: Int, concurrency: Int = 4) -> RunPlan {
        RunPlan(
            name: "leased",
            steps: [
                StepPlan(
                    id: "s", items: ChunkStepTests.items(items), action: action, concurrency: concurrency,
                    retry: .none, failureBudget: .count(100_000), batch: batch)
            ], concurrency: concurrency)
    }

    static let identity = RunIdentity(playbookName: "leased", playbookHash: "h")

    /// Waits until the run's chunk step is open for joining.
    static func openStep(_ store: RunStore) async throws -> Int64 {
        for _ in 0..<2_000 {
            if let open = try await store.openChunkSteps().first { return open.runID }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw PlanError("the run's chunk step never opened")
    }

    @Test(arguments: StoreKind.allCases) func twoEnginesShareAStepAndEveryItemIsWorkedOnceInOrder(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(location: try kind.location(in: dir))
        let effects = Effects()
        let owners = Mutex<[String: Int]>([:])
        func action(_ owner: String) -> ClosureChunkAction {
            var action = ClosureChunkAction { chunk, _ in
                owners.withLock { $0[owner, default: 0] += chunk.count }
                effects.add(chunk.map(\.key))
                // Chunks finish out of order, and slowly enough that both engines get some.
                try await Task.sleep(for: .microseconds(Int.random(in: 500...3_000)))
                return chunk.map { item in
                    let n = Int(item.fields["n"]!)!
                    if n % 50 == 0 { return .rejected(reason: "bad, row \(n)", outputs: ["source": "\(n)"]) }
                    if n % 97 == 0 { return .failed(.permanent, "row \(n) refused") }
                    return .succeeded(ActionResult(outputs: ["n": "\(n)", "double": "\(2 * n)"]))
                }
            }
            action.sinks = ChunkStepTests.twoSinks(dir)
            return action
        }
        // Leases longer than the test can take, so no chunk lapses and an item worked twice is a claim
        // handed out twice (a starved test process once held a 10 s lease past its end; takeovers are
        // tested below).
        let coordinator = try Engine(
            plan: Self.plan(action("first"), items: 3_000, batch: 50),
            checkpoint: try await store.openRun(Self.identity),
            options: .init(leasing: Leasing(owner: "first", lease: .seconds(120))))
        let running = Task { try await coordinator.run() }
        let runID = try await Self.openStep(store)
        let joiner = try Engine(
            plan: Self.plan(action("second"), items: 3_000, batch: 50),
            checkpoint: try await store.join(runID: runID, identity: Self.identity),
            options: .init(leasing: Leasing(owner: "second", lease: .seconds(120))))
        let joined = try await joiner.join()
        let summary = try await running.value

        #expect(joined.status == .completed)
        #expect(summary.status == .completed)
        #expect(effects.counts.count == 3_000)
        #expect(effects.counts.values.allSatisfy { $0 == 1 }, "an item was worked twice")
        let shares = owners.withLock { $0 }
        #expect((shares["first"] ?? 0) > 0 && (shares["second"] ?? 0) > 0, "both engines worked: \(shares)")
        // The run's counts are the store's, whoever worked the items.
        let failed = (1...3_000).filter { $0 % 97 == 0 && $0 % 50 != 0 }.count
        #expect(summary.rejected == 60)
        #expect(summary.failed == failed)
        #expect(summary.succeeded == 3_000 - 60 - failed)
        #expect(summary.exitCode == 1)
        let output = try String(contentsOfFile: dir.path("out.csv"), encoding: .utf8)
        let expected =
            "n,double\r\n"
            + (1...3_000).filter { $0 % 50 != 0 && $0 % 97 != 0 }.map { "\($0),\(2 * $0)\r\n" }.joined()
        #expect(output == expected)
        let rejects = try String(contentsOfFile: dir.path("rejects.csv"), encoding: .utf8)
        #expect(
            rejects == "source,reason\r\n" + (1...60).map { "\($0 * 50),\"bad, row \($0 * 50)\"\r\n" }.joined())
        let chunks = try await store.chunks(runID: runID, step: "s")
        #expect(chunks.count >= 60)
        #expect(chunks.allSatisfy { $0.state == "done" })
    }

    @Test(arguments: StoreKind.allCases) func aDeadHoldersChunkIsTakenOverAndItsItemsProbedBeforeAnySend(
        _ kind: StoreKind
    ) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(location: try kind.location(in: dir))
        let effects = Effects()
        var action = ClosureChunkAction { chunk, _ in
            effects.add(chunk.map(\.key))
            return ChunkStepTests.succeed(chunk)
        }
        action.isSideEffecting = true
        action.probeBody = { chunk in
            chunk.map { effects.contains($0.key) ? .done(ActionResult(outputs: ["n": $0.fields["n"]!])) : .notDone }
        }
        let handle = try await store.openRun(Self.identity)
        let plan = Self.plan(action, items: 500, batch: 100)
        // A holder claims chunk 0, commits its intents, sends half of it, and dies.
        try await store.prepareChunks(runID: handle.runID, step: "s", chunkSize: 100, total: 500)
        let dead = try #require(
            try await store.claimChunk(runID: handle.runID, step: "s", owner: "dead", lease: .milliseconds(200)))
        let intents = (0..<100).map { ItemOutcomeRow(key: "row:\($0 + 1)", index: $0, state: .started, attempts: 1) }
        try await store.fenced(dead, extendingBy: .milliseconds(200)) { write in try write.write(intents) }
        effects.add((1...50).map { "row:\($0)" })

        let engine = try Engine(
            plan: plan, checkpoint: handle,
            options: .init(leasing: Leasing(owner: "alive", lease: .seconds(10), poll: .milliseconds(50))))
        let summary = try await engine.run()
        #expect(summary.status == .completed)
        #expect(summary.succeeded == 500)
        #expect(effects.counts.count == 500)
        #expect(effects.counts.values.allSatisfy { $0 == 1 }, "an item was sent twice")
        let chunk0 = try await store.chunks(runID: handle.runID, step: "s").first
        #expect(chunk0?.epoch == 2)
        #expect(chunk0?.owner == "alive")
        // The dead holder's late completion is refused: the chunk is not its any more.
        await #expect(throws: RunStoreError.self) { try await store.complete(dead, updates: []) }
    }

    @Test(arguments: StoreKind.allCases) func aRetryRunsTheFailedItemsOfDoneChunksAgainAndRewritesTheirRows(
        _ kind: StoreKind
    ) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(location: try kind.location(in: dir))
        let refusing = Mutex(true)
        let effects = Effects()
        var action = ClosureChunkAction { chunk, _ in
            let refuse = refusing.withLock { $0 }
            return chunk.map { item in
                let n = Int(item.fields["n"]!)!
                if refuse && n % 40 == 0 { return .failed(.permanent, "row \(n) refused") }
                effects.add([item.key])
                return .succeeded(ActionResult(outputs: ["n": "\(n)", "double": "\(2 * n)"]))
            }
        }
        action.sinks = ChunkStepTests.twoSinks(dir)
        let plan = Self.plan(action, items: 1_000, batch: 100)
        let options = Engine.Options(leasing: Leasing(owner: "one", lease: .seconds(10), poll: .milliseconds(20)))
        let first = try await Engine(plan: plan, checkpoint: try await store.openRun(Self.identity), options: options)
            .run()
        #expect(first.failed == 25)
        #expect(first.succeeded == 975)
        refusing.withLock { $0 = false }
        let runID = try #require(first.runID)
        let retried = try await Engine(
            plan: plan, checkpoint: try await store.openRun(Self.identity, mode: .retry(runID: runID)),
            options: options
        ).run()
        #expect(retried.status == .completed)
        #expect(retried.failed == 0)
        #expect(retried.succeeded == 1_000)
        #expect(effects.counts.count == 1_000 && effects.counts.values.allSatisfy { $0 == 1 })
        let output = try String(contentsOfFile: dir.path("out.csv"), encoding: .utf8)
        #expect(output == "n,double\r\n" + (1...1_000).map { "\($0),\(2 * $0)\r\n" }.joined())
    }

    @Test(arguments: StoreKind.allCases) func noChunkIsClaimedOnceTheRunStopped(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(location: try kind.location(in: dir))
        let handle = try await store.openRun(Self.identity)
        try await store.prepareChunks(runID: handle.runID, step: "s", chunkSize: 10, total: 100)
        #expect(try await store.claimChunk(runID: handle.runID, step: "s", owner: "w", lease: .seconds(5)) != nil)
        #expect(try await store.openChunkSteps().map(\.runID) == [handle.runID])
        try await handle.finish(status: .interrupted, message: "stopped")
        #expect(try await store.claimChunk(runID: handle.runID, step: "s", owner: "w", lease: .seconds(5)) == nil)
        #expect(try await store.openChunkSteps().isEmpty)
    }
}
