/// The settings a step runs with once defaults are applied: nothing optional left but what means "no limit".
public struct EffectiveStepSettings: Sendable, Hashable {
    /// Items in flight (step value, else `defaults`, else the playbook `concurrency`, never above it).
    public var concurrency: Int
    /// Attempts started per second; `nil` means unlimited.
    public var rateLimit: Double?
    /// Retry policy (`RetrySettings.none` when not set).
    public var retry: RetrySettings
    /// Per-attempt limit; `nil` means none.
    public var timeout: Duration?
    /// Failure budget (`count(0)` when not set: the first failed item fails the step).
    public var maxFailures: MaxFailures
}
