import Synchronization

/// The engine's source of time: a monotonic "now" and a sleep until a deadline.
///
/// Instants are durations since the clock's own origin. The engine takes every rate-limit wait,
/// backoff, attempt timeout and grace period from this clock, so tests inject ``ManualClock`` and
/// never really sleep.
public protocol RunnerClock: Sendable {
    /// The time elapsed since the clock's origin.
    func now() -> Duration
    /// Suspends until `now() >= deadline`; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Duration) async throws
}

/// Real monotonic time (`ContinuousClock`), with its origin when the value was created.
public struct SystemClock: RunnerClock {
    private let origin: ContinuousClock.Instant

    /// A clock whose origin is now.
    public init() { origin = ContinuousClock.now }

    public func now() -> Duration { ContinuousClock.now - origin }

    public func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin + deadline, clock: .continuous)
    }
}

/// A clock that moves only when told to: for tests.
///
/// With `autoAdvance` true, `sleep(until:)` moves the clock forward to the deadline at once (time
/// "passes" instantly, so rate limits and backoffs can be measured without waiting). Otherwise sleepers
/// wait until ``advance(by:)`` or ``advance(to:)`` reaches their deadline.
public final class ManualClock: RunnerClock {
    private struct Sleeper {
        var id: UInt64
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var requested: [Duration] = []
    }

    private let state = Mutex(State())
    /// Whether sleeps complete at once by moving the clock.
    public let autoAdvance: Bool

    /// Creates a clock at zero.
    public init(autoAdvance: Bool = false) { self.autoAdvance = autoAdvance }

    public func now() -> Duration { state.withLock { $0.now } }

    /// The durations callers asked to sleep for (deadline minus now at the call), in call order.
    public var requestedSleeps: [Duration] { state.withLock { $0.requested } }

    /// How many tasks are waiting in `sleep(until:)`.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone waits for.
    public var nextDeadline: Duration? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    public func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        let ready: Bool = state.withLock { state in
            if deadline > state.now { state.requested.append(deadline - state.now) }
            if deadline <= state.now { return true }
            if autoAdvance {
                state.now = deadline
                return true
            }
            return false
        }
        if ready {
            await Task.yield()
            return
        }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline has passed.
    public func advance(by duration: Duration) {
        advance(to: now() + duration)
    }

    /// Moves the clock to `instant` (never backwards) and wakes every sleeper whose deadline has passed.
    public func advance(to instant: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.now = max(state.now, instant)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
