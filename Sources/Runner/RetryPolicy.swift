/// How many times an item is tried and how long to wait between tries.
///
/// The wait before attempt `n + 1` is exponential backoff with jitter: with the cap
/// `c = min(maxBackoff, initialBackoff * multiplier^(n-1))`, "full" jitter (the default) waits a uniform
/// random duration in `[0, c]`, "equal" jitter `c/2` plus a uniform `[0, c/2]`, "none" exactly `c`. The
/// random draw comes from a generator seeded by `seed`, the item key and `n`, so it is reproducible
/// whatever the scheduling order.
/// See <https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/>.
public struct RetryPolicy: Sendable, Equatable {
    /// Total attempts per item (1 = no retry).
    public var maxAttempts: Int
    /// The backoff cap for the first retry.
    public var initialBackoff: Duration
    /// The largest backoff cap.
    public var maxBackoff: Duration
    /// The growth of the cap per attempt.
    public var multiplier: Double
    /// The error classes that are retried. For a side-effecting action an ``ErrorClass/inDoubt`` error
    /// is probed first and, when the probe says not done, retried like ``ErrorClass/retryable``; for
    /// other actions it is retried only when listed here.
    public var retryOn: Set<ErrorClass>
    /// Whether an attempt that hit the step timeout is retried (a side-effecting action's timed-out
    /// attempt is probed first, like any in-doubt one).
    public var retryTimeouts: Bool
    /// How the wait is randomised.
    public var jitter: Jitter
    /// The jitter seed.
    public var seed: UInt64

    /// Randomisation of backoff waits.
    public enum Jitter: Sendable, Equatable {
        /// Exactly the cap.
        case none
        /// Uniform in `[0, cap]`.
        case full
        /// `cap/2` plus uniform in `[0, cap/2]`.
        case equal
    }

    /// Creates a policy.
    public init(
        maxAttempts: Int = 3, initialBackoff: Duration = .milliseconds(200), maxBackoff: Duration = .seconds(30),
        multiplier: Double = 2, retryOn: Set<ErrorClass> = [.retryable], retryTimeouts: Bool = true,
        jitter: Jitter = .full, seed: UInt64 = 0
    ) {
        self.retryTimeouts = retryTimeouts
        self.jitter = jitter
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.multiplier = multiplier
        self.retryOn = retryOn
        self.seed = seed
    }

    /// One attempt, no retry.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The cap of the wait after failed attempt `attempt` (1-based), before jitter.
    public func backoffCap(afterAttempt attempt: Int) -> Duration {
        let initial = initialBackoff.seconds
        let cap = min(maxBackoff.seconds, initial * pow(multiplier, Double(max(0, attempt - 1))))
        return .seconds(cap)
    }

    /// The jittered wait after failed attempt `attempt` of the item `key`.
    public func backoff(afterAttempt attempt: Int, key: String) -> Duration {
        let cap = backoffCap(afterAttempt: attempt).seconds
        var rng = SplitMix64(seed: seed, key: key, salt: UInt64(attempt))
        switch jitter {
        case .none: return .seconds(cap)
        case .full: return .seconds(cap * rng.nextUnit())
        case .equal: return .seconds(cap / 2 + cap / 2 * rng.nextUnit())
        }
    }
}

/// When a step has failed too much and the run should stop.
///
/// Rejected and failed items both count. `count(n)` allows `n` failures and aborts at `n + 1`.
/// `percent(p, minimumSample: m)` is evaluated after every outcome against the items that have an
/// outcome so far: it aborts once at least `m` items have finished and more than `p` percent of them
/// failed, so one early failure cannot abort a large run while a systematic failure still stops it
/// early.
public enum FailureBudget: Sendable, Equatable {
    /// At most this many failed or rejected items.
    case count(Int)
    /// At most this percentage of finished items, judged once `minimumSample` have finished.
    case percent(Double, minimumSample: Int)

    /// True when `failures` out of `finished` items exceed the budget.
    public func isExceeded(failures: Int, finished: Int) -> Bool {
        switch self {
        case .count(let limit):
            return failures > limit
        case .percent(let percent, let minimumSample):
            guard finished >= max(1, minimumSample) else { return false }
            return Double(failures) * 100 > percent * Double(finished)
        }
    }
}

extension Duration {
    /// The duration in seconds as a double.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}

private func pow(_ base: Double, _ exponent: Double) -> Double {
    // Integer exponents only (attempt numbers): avoids importing Foundation for one call.
    var result = 1.0
    var count = Int(exponent)
    while count > 0 && result < 1e18 {
        result *= base
        count -= 1
    }
    return result
}
