import Playbook

/// The thin compiler from the ``Playbook`` model to the engine's plan types.
extension RunPlan {
    /// Compiles a validated playbook: graph, concurrency, rate limits, retries, timeouts and failure
    /// budgets come from the playbook (with its `defaults` applied); the jobs layer supplies each step's
    /// action (`action`, which also renders `with:` and evaluates `when:` per item) and items (`items`;
    /// nil for a step without `for_each`).
    ///
    /// A percentage `max_failures` is judged against the items finished so far once `minimumSample`
    /// have finished (the engine never counts the input ahead), and exceeding a budget aborts the run.
    public init(
        playbook: Playbook, seed: UInt64 = 0, minimumSample: Int = FailureBudget.defaultMinimumSample,
        action: (Step) throws -> any Action, items: (Step) throws -> ItemSource?
    ) rethrows {
        var steps: [StepPlan] = []
        for step in playbook.steps {
            let settings = playbook.effectiveSettings(for: step)
            let made = try action(step)
            var concurrency = settings.concurrency
            // A chunk action's own default applies where neither the step nor `defaults` sets one.
            if step.settings.concurrency == nil, playbook.defaults.concurrency == nil,
                let preferred = (made as? any ChunkAction)?.defaultConcurrency
            {
                concurrency = min(max(1, preferred), playbook.concurrency)
            }
            steps.append(
                StepPlan(
                    id: step.id, needs: step.needs,
                    items: try items(step) ?? (made as? any ChunkAction)?.items ?? .single, action: made,
                    concurrency: concurrency, ratePerSecond: settings.rateLimit, burst: 1,
                    retry: RetryPolicy(settings.retry, seed: seed), timeout: settings.timeout,
                    failureBudget: FailureBudget(settings.maxFailures, minimumSample: minimumSample), batch: step.batch)
            )
        }
        self.init(name: playbook.name, steps: steps, concurrency: playbook.concurrency)
    }
}

extension RetryPolicy {
    /// The policy a playbook's `retry:` describes (`on: [retryable, in_doubt, timeout]`).
    public init(_ settings: RetrySettings, seed: UInt64 = 0) {
        var classes: Set<ErrorClass> = []
        if settings.on.contains(.retryable) { classes.insert(.retryable) }
        if settings.on.contains(.inDoubt) { classes.insert(.inDoubt) }
        let jitter: Jitter
        switch settings.jitter {
        case .none: jitter = .none
        case .full: jitter = .full
        case .equal: jitter = .equal
        }
        self.init(
            maxAttempts: settings.attempts, initialBackoff: settings.backoff.initial, maxBackoff: settings.backoff.max,
            multiplier: settings.backoff.multiplier, retryOn: classes, retryTimeouts: settings.on.contains(.timeout),
            jitter: jitter, seed: seed)
    }
}

extension FailureBudget {
    /// The sample a percentage budget waits for before it can abort, unless told otherwise.
    public static let defaultMinimumSample = 20

    /// The budget a playbook's `max_failures` describes.
    public init(_ maxFailures: MaxFailures, minimumSample: Int = defaultMinimumSample) {
        switch maxFailures {
        case .count(let count): self = .count(count)
        case .percent(let percent): self = .percent(percent, minimumSample: minimumSample)
        }
    }
}

extension RunIdentity {
    /// The identity of a run of `playbook` with resolved `vars` (playbook vars are never secret:
    /// secrets are declared apart and never part of the identity) and the caller's input fingerprints.
    public init(playbook: Playbook, inputFingerprints: [String: String], vars: [String: TemplateValue]) {
        self.init(
            playbookName: playbook.name, playbookHash: playbook.hash.description, inputFingerprints: inputFingerprints,
            vars: vars.mapValues { value in
                if case .string(let text) = value { return text }
                return value.json
            },
            looseVars: Set(playbook.vars.values.filter { !$0.changesWork }.map(\.name)))
    }
}
