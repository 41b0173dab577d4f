import Foundation
import Synchronization
import Testing

@testable import Runner

/// A refused sign-in (``RunStopCause/unauthorized``) stops the run at its first refusal: no retry (even
/// with a policy that retries permanent failures), no later item, the finished items kept, exit 1; once
/// the sign-in works again the same run resumes and does only the rest.
@Suite struct UnauthorizedStopTests {
    /// An error of a layer above the engine that converts itself, as a job's error type does.
    struct SessionExpired: ActionErrorConvertible {
        var actionError: ActionError { .unauthorized("session expired at 2026-12-02T03:00:00Z: sign in again") }
    }

    /// Retries anything, so a refusal that were retried would show as more calls.
    static let retryEverything = RetryPolicy(
        maxAttempts: 3, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(1),
        retryOn: [.retryable, .permanent, .inDoubt])

    static let identity = RunIdentity(playbookName: "expiring", playbookHash: "h")

    /// One chunk step of `items` rows in chunks of 100, one chunk at a time, retrying everything.
    static func chunkPlan(_ action: ClosureChunkAction, items: Int) -> RunPlan {
        RunPlan(
            name: "expiring",
            steps: [
                StepPlan(
                    id: "s", items: ChunkStepTests.items(items), action: action, concurrency: 1,
                    retry: retryEverything, failureBudget: .count(10_000), batch: 100)
            ])
    }

    @Test(arguments: StoreKind.allCases) func aChunkStepStopsAtTheFirstRefusedChunkAndResumesTheRest(_ kind: StoreKind)
        async throws
    {
        // The session expires after the third chunk, until the operator signs in again.
        let signedIn = Atomic<Bool>(false)
        let calls = Atomic<Int>(0)
        let action = ClosureChunkAction { chunk, _ in
            if calls.add(1, ordering: .relaxed).newValue > 3 && !signedIn.load(ordering: .relaxed) {
                throw ActionError.unauthorized("session expired: sign in again")
            }
            return ChunkStepTests.succeed(chunk)
        }
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(location: try kind.location(in: dir))
        let plan = Self.chunkPlan(action, items: 1_000)
        let stopped = try await Engine.run(plan: plan, store: store, identity: Self.identity)
        #expect(stopped.status == .interrupted)
        #expect(stopped.stopCause == .unauthorized)
        #expect(stopped.exitCode == 1)
        #expect(stopped.reason?.contains("session expired") == true, "\(stopped.reason ?? "")")
        #expect(stopped.succeeded == 300 && stopped.failed == 0, "\(stopped.steps)")
        #expect(action.chunks.all.count == 4, "three chunks, then the refused one once: \(action.chunks.all.count)")

        signedIn.store(true, ordering: .relaxed)
        let resumed = try await Engine.run(plan: plan, store: store, identity: Self.identity)
        #expect(resumed.runID == stopped.runID)
        #expect(resumed.status == .completed && resumed.exitCode == 0)
        #expect(resumed.succeeded == 1_000)
        let sent = action.chunks.all.dropFirst(4).flatMap { $0 }
        #expect(sent.count == 700 && Set(sent).count == 700, "only what the stop left: \(sent.count)")
        #expect(Set(sent).isDisjoint(with: action.chunks.all.prefix(3).flatMap { $0 }))
    }

    /// A probe refused for its sign-in answers nothing: the chunk's items stay in doubt (not failed as
    /// "outcome unknown"), the run stops, and once signed in the resume probes them again and finishes.
    @Test(arguments: StoreKind.allCases) func aProbeRefusedForItsSignInLeavesItsItemsInDoubt(_ kind: StoreKind)
        async throws
    {
        let signedIn = Atomic<Bool>(false)
        let probes = Atomic<Int>(0)
        var action = ClosureChunkAction { chunk, _ in
            // The first chunk's reply is lost: its effect is unknown until the probe answers.
            if chunk.first?.key == "row:1" && !signedIn.load(ordering: .relaxed) {
                throw ActionError.inDoubt("the reply was lost")
            }
            return ChunkStepTests.succeed(chunk)
        }
        action.isSideEffecting = true
        action.probeBody = { chunk in
            probes.add(1, ordering: .relaxed)
            guard signedIn.load(ordering: .relaxed) else { throw SessionExpired() }
            return chunk.map { _ in .notDone }
        }
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(location: try kind.location(in: dir))
        let plan = Self.chunkPlan(action, items: 300)
        let stopped = try await Engine.run(plan: plan, store: store, identity: Self.identity)
        #expect(stopped.status == .interrupted && stopped.stopCause == .unauthorized && stopped.exitCode == 1)
        #expect(stopped.failed == 0, "no row failed for the probe: \(stopped.steps)")
        #expect(probes.load(ordering: .relaxed) == 1)
        let inDoubt = try await store.items(runID: try #require(stopped.runID)).filter { $0.state == .started }
        #expect(inDoubt.count == 100, "the first chunk's rows still in doubt")

        signedIn.store(true, ordering: .relaxed)
        let resumed = try await Engine.run(plan: plan, store: store, identity: Self.identity)
        #expect(resumed.status == .completed && resumed.succeeded == 300 && resumed.failed == 0, "\(resumed.steps)")
        #expect(probes.load(ordering: .relaxed) == 2, "the resume asked about them again before sending")
    }

    @Test func anItemStepStopsOnAConvertedRefusalWithoutARetry() async throws {
        let calls = Atomic<Int>(0)
        let expired = Atomic<Bool>(false)
        let action = ClosureAction { item, _ in
            calls.add(1, ordering: .relaxed)
            if expired.load(ordering: .relaxed) { throw SessionExpired() }
            if item.key == "item-4" { expired.store(true, ordering: .relaxed) }
            return ActionResult()
        }
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(location: try StoreKind.sqlite.location(in: dir))
        let plan = RunPlan(
            name: "expiring",
            steps: [
                StepPlan(
                    id: "s", items: numberedItems(20), action: action, concurrency: 1, retry: Self.retryEverything,
                    failureBudget: .count(100))
            ])
        let stopped = try await Engine.run(plan: plan, store: store, identity: Self.identity)
        #expect(stopped.status == .interrupted && stopped.stopCause == .unauthorized && stopped.exitCode == 1)
        #expect(stopped.succeeded == 5 && stopped.failed == 0)
        #expect(calls.load(ordering: .relaxed) == 6, "items 0 to 4, then the refused one once")

        expired.store(false, ordering: .relaxed)
        let resumed = try await Engine.run(plan: plan, store: store, identity: Self.identity)
        #expect(resumed.runID == stopped.runID && resumed.status == .completed)
        #expect(resumed.succeeded == 20)
        #expect(calls.load(ordering: .relaxed) == 21, "the 15 left, none again")
    }
}
