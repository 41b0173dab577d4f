/// Does nothing and succeeds: for dry runs and engine benchmarks.
public struct NoopAction: ImmediateAction {
    public init() {}
    public var name: String { "noop" }
    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult { .empty }
    public func runImmediately(_ item: WorkItem, context: ActionContext) throws -> ActionResult { .empty }
}

/// Waits `duration` on the engine's clock, then succeeds.
public struct SleepAction: Action {
    /// How long each item takes.
    public var duration: Duration
    /// Creates the action.
    public init(duration: Duration) { self.duration = duration }
    public var name: String { "sleep" }
    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        try await context.clock.sleep(until: context.clock.now() + duration)
        return .empty
    }
}

/// Fails a seeded, reproducible fraction of attempts with a chosen error class: for testing retries,
/// budgets and reports.
///
/// Whether attempt `n` of item `key` fails depends only on `(seed, key, n)`, never on scheduling.
public struct FailAction: ImmediateAction {
    /// The chance in [0, 1] that an attempt fails.
    public var probability: Double
    /// The class of the injected error.
    public var errorClass: ErrorClass
    /// Reject instead of fail.
    public var reject: Bool
    /// The seed.
    public var seed: UInt64

    public init(probability: Double, errorClass: ErrorClass = .permanent, reject: Bool = false, seed: UInt64 = 0) {
        self.probability = probability
        self.errorClass = errorClass
        self.reject = reject
        self.seed = seed
    }

    public var name: String { "fail" }

    /// Whether attempt `attempt` of `key` fails.
    public func fails(key: String, attempt: Int) -> Bool {
        var rng = SplitMix64(seed: seed, key: key, salt: UInt64(attempt) &+ 0x5eed)
        return rng.nextUnit() < probability
    }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        try runImmediately(item, context: context)
    }

    public func runImmediately(_ item: WorkItem, context: ActionContext) throws -> ActionResult {
        guard fails(key: item.key, attempt: context.attempt) else { return .empty }
        if reject { throw ActionError.rejected("injected rejection of item \(item.key)") }
        throw ActionError(
            errorClass, "injected \(errorClass.rawValue) failure of item \(item.key) attempt \(context.attempt)")
    }
}
