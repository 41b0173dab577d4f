import Foundation
import Synchronization

/// The SDK's time source: when sessions count as expired and when expiry observers fire. Injected so
/// tests move time without sleeping.
public protocol OMSWalletClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Returns at `deadline` (at once when it has passed); throws `CancellationError` when the task is
    /// cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The system clock.
public struct SystemWalletClock: OMSWalletClock {
    /// The system clock.
    public init() {}
    /// `Date()`.
    public func now() -> Date { Date() }
    /// Sleeps in steps of at most an hour until `deadline`.
    public func sleep(until deadline: Date) async throws {
        // Wake at least hourly so a suspended machine or a changed wall clock is noticed.
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return }
            try await Task.sleep(nanoseconds: UInt64(min(remaining, 3_600) * 1_000_000_000))
        }
    }
}

/// A clock that moves only when told to: `advance(by:)` wakes every sleeper whose deadline passed.
public final class ManualWalletClock: OMSWalletClock {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now: Date
        var nextId = 0
        var sleepers: [Int: Sleeper] = [:]
    }
    private let state: Mutex<State>

    /// A clock reading `start` until advanced.
    public init(_ start: Date = Date()) { state = Mutex(State(now: start)) }

    /// The current (manual) time.
    public func now() -> Date { state.withLock { $0.now } }

    /// How many tasks are waiting on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The deadlines sleepers are waiting for, earliest first (tests wait for a particular timer).
    public var sleeperDeadlines: [Date] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    /// Moves time forward and wakes the sleepers whose deadline is reached.
    public func advance(by seconds: TimeInterval) {
        let due = state.withLock { state in
            state.now = state.now.addingTimeInterval(seconds)
            let now = state.now
            let ids = state.sleepers.filter { $0.value.deadline <= now }.map(\.key)
            return ids.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }

    /// Waits until `advance(by:)` reaches `deadline`.
    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { state in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool? = state.withLock { state in
                    if Task.isCancelled { return false }
                    if deadline <= state.now { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                switch resumeNow {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
