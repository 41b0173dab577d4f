/// How many times an item is tried and how long to wait between tries.
///
/// The wait before attempt `n + 1` is "full jitter" exponential backoff: a uniform random duration in
/// `[0, min(maxBackoff, initialBackoff * multiplier^(n-1))]`, drawn from a generator seeded by `seed`,
/// the item key and `n`, so it is reproducible whatever the scheduling order.
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
    /// The error classes that are retried (``ErrorClass/inDoubt`` is always probed first; when the
    /// probe says not done, it is retried like ``ErrorClass/retryable``).
    public var retryOn: Set<ErrorClass>
    /// The jitter seed.
    public var seed: UInt64

    /// Creates a policy.
    public init(
        maxAttempts: Int = 3, initialBackoff: Duration = .milliseconds(200), maxBackoff: Duration = .seconds(30),
        multiplier: Double = 2, retryOn: Set<ErrorClass> = [.retryable], seed: UInt64 = 0
    ) {
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
        var rng = SplitMix64(seed: seed, key: key, salt: UInt64(attempt))
        return .seconds(backoffCap(afterAttempt: attempt).seconds * rng.nextUnit())
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
