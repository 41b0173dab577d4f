/// A run's plan: the steps of a playbook compiled into what the engine executes.
public struct RunPlan: Sendable {
    /// The playbook's name.
    public var name: String
    /// The steps, in declaration order.
    public var steps: [StepPlan]
    /// The most items in flight across all steps.
    public var concurrency: Int
    /// The failure budget for steps that do not set their own (nil = unlimited).
    public var failureBudget: FailureBudget?

    /// Creates a plan.
    public init(name: String, steps: [StepPlan], concurrency: Int = 8, failureBudget: FailureBudget? = nil) {
        self.name = name
        self.steps = steps
        self.concurrency = max(1, concurrency)
        self.failureBudget = failureBudget
    }

    /// Checks ids are unique, needs exist, and the needs form no cycle.
    public func validate() throws(PlanError) {
        var seen: [String: Int] = [:]
        for (index, step) in steps.enumerated() {
            if step.id.isEmpty { throw PlanError("step \(index + 1) has an empty id") }
            if seen[step.id] != nil { throw PlanError("step id '\(step.id)' is used twice") }
            seen[step.id] = index
        }
        for step in steps {
            for need in step.needs where seen[need] == nil {
                throw PlanError("step '\(step.id)' needs '\(need)', which is not a step of '\(name)'")
            }
            if step.needs.contains(step.id) { throw PlanError("step '\(step.id)' needs itself") }
        }
        // Kahn's algorithm: whatever is left over sits on a cycle.
        var indegree = steps.map { Set($0.needs).count }
        var ready = indegree.indices.filter { indegree[$0] == 0 }
        var done = 0
        while let index = ready.popLast() {
            done += 1
            for (other, step) in steps.enumerated() where Set(step.needs).contains(steps[index].id) {
                indegree[other] -= 1
                if indegree[other] == 0 { ready.append(other) }
            }
        }
        if done < steps.count {
            let cycle = indegree.indices.filter { indegree[$0] > 0 }.map { steps[$0].id }
            throw PlanError("steps \(cycle.joined(separator: ", ")) need each other in a cycle")
        }
    }
}

/// One step of a plan.
public struct StepPlan: Sendable {
    /// The step id, unique in the plan.
    public var id: String
    /// Ids of steps that must finish first.
    public var needs: [String]
    /// The items (``ItemSource/single`` for a step without `for_each`).
    public var items: ItemSource
    /// What to do with each item.
    public var action: any Action
    /// The most items of this step in flight (also bounded by the plan's concurrency).
    public var concurrency: Int
    /// Attempts started per second (nil = unlimited).
    public var ratePerSecond: Double?
    /// Attempts that may start back to back after an idle period (the bucket size).
    public var burst: Int
    /// Retry and backoff.
    public var retry: RetryPolicy
    /// The longest one attempt may take (nil = no limit). A timed-out attempt counts as
    /// ``ErrorClass/inDoubt`` for a side-effecting action and ``ErrorClass/retryable`` otherwise.
    public var timeout: Duration?
    /// This step's failure budget (nil = the plan's).
    public var failureBudget: FailureBudget?
    /// Items per chunk of a ``ChunkAction`` (1 for any other action).
    public var batch: Int
    /// The files the step writes a row to per item, in input order (a ``ChunkAction``'s sinks).
    public var sinks: [OutputSink]

    /// Whether the engine commits an intent before running an item and probes it after a crash: a
    /// side-effecting action that is not idempotent.
    public var needsIntents: Bool { action.isSideEffecting && !action.isIdempotent }

    /// Creates a step.
    public init(
        id: String, needs: [String] = [], items: ItemSource = .single, action: any Action, concurrency: Int = 1,
        ratePerSecond: Double? = nil, burst: Int = 1, retry: RetryPolicy = .init(), timeout: Duration? = nil,
        failureBudget: FailureBudget? = nil, batch: Int? = nil
    ) {
        self.id = id
        self.needs = needs
        self.items = items
        self.action = action
        self.concurrency = max(1, concurrency)
        self.ratePerSecond = ratePerSecond
        self.burst = max(1, burst)
        self.retry = retry
        self.timeout = timeout
        self.failureBudget = failureBudget
        let chunkAction = action as? any ChunkAction
        self.batch = chunkAction == nil ? 1 : max(1, batch ?? chunkAction!.defaultBatch)
        self.sinks = chunkAction?.sinks ?? []
    }
}

/// A plan that cannot run: duplicate ids, unknown needs, cycles.
public struct PlanError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { "invalid plan: \(message)" }
}
