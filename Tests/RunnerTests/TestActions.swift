import Foundation
import Synchronization

@testable import Runner

/// An action built from closures, for tests.
struct ClosureAction: Action {
    var name = "closure"
    var isSideEffecting = false
    var body: @Sendable (WorkItem, ActionContext) async throws -> ActionResult
    var probeBody: (@Sendable (WorkItem, ActionContext) async throws -> ProbeOutcome)?

    init(
        sideEffecting: Bool = false, probe: (@Sendable (WorkItem, ActionContext) async throws -> ProbeOutcome)? = nil,
        _ body: @escaping @Sendable (WorkItem, ActionContext) async throws -> ActionResult
    ) {
        self.isSideEffecting = sideEffecting
        self.body = body
        self.probeBody = probe
    }

    func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult { try await body(item, context) }

    func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome {
        try await probeBody?(item, context) ?? .unknown
    }
}

/// Thread-safe counters and logs for instrumented actions.
final class Recorder: Sendable {
    struct State {
        var inFlight: [String: Int] = [:]
        var maxInFlight: [String: Int] = [:]
        var globalInFlight = 0
        var maxGlobal = 0
        var log: [String] = []
        var counts: [String: Int] = [:]
    }

    let state = Mutex(State())

    func enter(_ step: String) {
        state.withLock { s in
            s.inFlight[step, default: 0] += 1
            s.maxInFlight[step] = max(s.maxInFlight[step] ?? 0, s.inFlight[step]!)
            s.globalInFlight += 1
            s.maxGlobal = max(s.maxGlobal, s.globalInFlight)
        }
    }

    func leave(_ step: String) {
        state.withLock { s in
            s.inFlight[step, default: 0] -= 1
            s.globalInFlight -= 1
        }
    }

    func log(_ entry: String) { state.withLock { $0.log.append(entry) } }

    @discardableResult
    func count(_ name: String) -> Int {
        state.withLock { s in
            s.counts[name, default: 0] += 1
            return s.counts[name]!
        }
    }

    var snapshot: State { state.withLock { $0 } }
}

func numberedItems(_ count: Int, prefix: String = "item") -> ItemSource {
    .generated(count: count) { WorkItem(key: "\(prefix)-\($0)", fields: ["n": String($0)]) }
}

/// Waits (really, briefly) until `condition` holds; for tests that drive a ManualClock. The state is one
/// the engine reaches on its own; the timeout is only a safety net, generous because a
/// shared CI machine running the whole suite in parallel can stall a test for tens of seconds.
func waitUntil(timeout: Double = 120, _ condition: () -> Bool) async throws {
    let start = Date()
    while !condition() {
        if Date().timeIntervalSince(start) > timeout { throw TimeoutReached() }
        try await Task.sleep(for: .milliseconds(1))
    }
}

struct TimeoutReached: Error {}

/// Holds each item that reaches it until ``stop(_:atInFlight:)`` lets them all go, so a test can stop the
/// engine while a known number of items is in flight.
final class ItemGate: Sendable {
    private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])

    /// Waits here until the gate opens.
    func pass() async {
        await withCheckedContinuation { continuation in waiting.withLock { $0.append(continuation) } }
    }

    /// Runs `plan` until `count` items wait at the gate, stops the engine, then lets the items finish;
    /// returns the run's summary.
    func stop(_ plan: RunPlan, atInFlight count: Int) async throws -> RunSummary {
        let engine = try Engine(plan: plan, checkpoint: nil, options: .init(clock: ManualClock()))
        let run = Task { try await engine.run() }
        try await waitUntil { waiting.withLock { $0.count } == count }
        engine.stop()
        let held = waiting.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting
        }
        for continuation in held { continuation.resume() }
        return try await run.value
    }
}
