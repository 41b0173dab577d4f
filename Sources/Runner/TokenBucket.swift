import Synchronization

/// A token bucket shared by a step's workers: `rate` tokens per second, up to `burst` saved.
///
/// `reserve(now:)` takes a token, possibly borrowing from the future, and says until when the caller
/// must wait, so concurrent callers queue in order without a lock held across the wait.
final class TokenBucket: Sendable {
    private struct State {
        var tokens: Double
        var last: Duration
    }

    private let rate: Double
    private let burst: Double
    private let state: Mutex<State>

    init(rate: Double, burst: Int, now: Duration) {
        self.rate = rate
        self.burst = Double(max(1, burst))
        self.state = Mutex(State(tokens: Double(max(1, burst)), last: now))
    }

    /// Takes one token; returns the instant to wait until, or nil to go now.
    func reserve(now: Duration) -> Duration? {
        state.withLock { state in
            let elapsed = (now - state.last).seconds
            if elapsed > 0 {
                state.tokens = min(burst, state.tokens + elapsed * rate)
                state.last = now
            }
            state.tokens -= 1
            if state.tokens >= 0 { return nil }
            return state.last + .seconds(-state.tokens / rate)
        }
    }
}
