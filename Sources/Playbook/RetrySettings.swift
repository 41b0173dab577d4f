/// How a step retries a failed item attempt (`retry:`).
public struct RetrySettings: Sendable, Hashable {
    /// Exponential backoff between attempts.
    public struct Backoff: Sendable, Hashable {
        /// The delay before the second attempt.
        public var initial: Duration
        /// The largest delay.
        public var max: Duration
        /// The factor applied after each attempt.
        public var multiplier: Double

        /// Creates a backoff.
        public init(initial: Duration = .seconds(1), max: Duration = .seconds(60), multiplier: Double = 2) {
            self.initial = initial
            self.max = max
            self.multiplier = multiplier
        }

        /// The delay before attempt `attempt` (2 is the first retry), without jitter.
        public func delay(beforeAttempt attempt: Int) -> Duration {
            guard attempt > 1 else { return .zero }
            var seconds = Double(initial.components.seconds) + Double(initial.components.attoseconds) / 1e18
            let cap = Double(max.components.seconds) + Double(max.components.attoseconds) / 1e18
            var step = 2
            while step < attempt, seconds < cap, multiplier > 1 {
                seconds *= multiplier
                step += 1
            }
            return .milliseconds(Int64((Swift.min(seconds, cap) * 1000).rounded()))
        }
    }

    /// Randomisation of each delay (AWS "Exponential Backoff and Jitter").
    public enum Jitter: String, Sendable, Hashable, CaseIterable {
        /// The exact backoff delay.
        case none
        /// A uniform random delay in `0...delay`.
        case full
        /// `delay/2` plus a uniform random `0...delay/2`.
        case equal
    }

    /// Classes of failure that may be retried (the engine classifies each error).
    public enum Condition: String, Sendable, Hashable, CaseIterable {
        /// A transient failure the service marked retryable (rate limited, unavailable).
        case retryable
        /// The outcome is unknown (connection lost after sending); retry only idempotent actions.
        case inDoubt = "in_doubt"
        /// The attempt hit the step's `timeout`.
        case timeout
    }

    /// Total attempts, including the first (1 = no retry).
    public var attempts: Int
    /// Delays between attempts.
    public var backoff: Backoff
    /// Randomisation of delays.
    public var jitter: Jitter
    /// Which failures are retried.
    public var on: Set<Condition>

    /// Creates a policy.
    public init(
        attempts: Int = 1, backoff: Backoff = Backoff(), jitter: Jitter = .full, on: Set<Condition> = [.retryable]
    ) {
        self.attempts = attempts
        self.backoff = backoff
        self.jitter = jitter
        self.on = on
    }

    /// No retries.
    public static let none = RetrySettings()
}
