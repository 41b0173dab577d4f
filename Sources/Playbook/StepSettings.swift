/// Per-step execution settings; any field left `nil` falls back to the playbook's `defaults`.
public struct StepSettings: Sendable, Hashable {
    /// At most this many items of the step in flight.
    public var concurrency: Int?
    /// At most this many item attempts started per second.
    public var rateLimit: Double?
    /// Retry policy for a failed attempt.
    public var retry: RetrySettings?
    /// Limit on one attempt.
    public var timeout: Duration?
    /// Failed items tolerated before the step stops.
    public var maxFailures: MaxFailures?

    /// Creates settings.
    public init(
        concurrency: Int? = nil, rateLimit: Double? = nil, retry: RetrySettings? = nil, timeout: Duration? = nil,
        maxFailures: MaxFailures? = nil
    ) {
        self.concurrency = concurrency
        self.rateLimit = rateLimit
        self.retry = retry
        self.timeout = timeout
        self.maxFailures = maxFailures
    }

    /// These settings with every `nil` field taken from `fallback`.
    public func merged(over fallback: StepSettings) -> StepSettings {
        StepSettings(
            concurrency: concurrency ?? fallback.concurrency, rateLimit: rateLimit ?? fallback.rateLimit,
            retry: retry ?? fallback.retry, timeout: timeout ?? fallback.timeout,
            maxFailures: maxFailures ?? fallback.maxFailures)
    }
}
