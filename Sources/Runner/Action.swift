/// What a step does to each item.
///
/// `run` performs the work; side-effecting actions (those that change something outside the run:
/// create a wallet, append to a file) also implement `probe`, which answers "did this item's effect
/// already happen?" from the outside world. The engine commits an item's intent (`started` with its
/// idempotency key) before calling `run` of a side-effecting action, and probes items it finds
/// `started` after a crash before running them again, so an effect is never performed twice when the
/// probe can tell. See docs/engine.md.
public protocol Action: Sendable {
    /// A short name for reports ("noop", "append", "create-wallet").
    var name: String { get }
    /// True when `run` changes state outside the run, so intents and probes apply.
    var isSideEffecting: Bool { get }
    /// True when running an item again has no further effect (the remote side answers a repeat with what
    /// the first run did, e.g. by reference): a side-effecting action that is idempotent needs no intents,
    /// as an item that may have run is simply run again, which is its own probe. Default false.
    var isIdempotent: Bool { get }
    /// Performs the work for one item. Must honour task cancellation.
    func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult
    /// Whether the effect of `item` already happened. The default answers ``ProbeOutcome/unknown``.
    func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome
}

/// An action whose work never suspends (no I/O, no waiting): the engine calls
/// ``runImmediately(_:context:)`` in place of `run`, without an async call per item, and runs the step on
/// no more workers than cores, publishing the plain successes of a batch together.
///
/// A tuning mechanism: ``Engine/Options/immediateActions`` false calls `run` for every action (docs/bench.md
/// "Tuning mechanisms and how to switch them off").
public protocol ImmediateAction: Action {
    /// Performs the work for one item without suspending, with the same meaning (result, errors) as
    /// ``Action/run(_:context:)``.
    func runImmediately(_ item: WorkItem, context: ActionContext) throws -> ActionResult
}

extension Action {
    public var isSideEffecting: Bool { false }
    public var isIdempotent: Bool { false }
    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome { .unknown }
}

/// What an action learns about the item it runs.
public struct ActionContext: Sendable {
    /// The checkpoint run id (0 when the engine runs without a store).
    public var runID: Int64
    /// The step's id.
    public var stepID: String
    /// The step's index in the plan.
    public var stepIndex: Int
    /// The item's key.
    public var itemKey: String
    /// 1 for the first attempt, counting attempts of earlier invocations of a resumed run.
    public var attempt: Int
    /// The engine's clock.
    public var clock: any RunnerClock

    /// A key that is the same for every attempt of this item in this run, across resumes: send it as
    /// the request's idempotency key so the remote side can deduplicate.
    public var idempotencyKey: String { IdempotencyKey.make(runID: runID, stepIndex: stepIndex, itemKey: itemKey) }

    /// Creates a context.
    public init(runID: Int64, stepID: String, stepIndex: Int, itemKey: String, attempt: Int, clock: any RunnerClock) {
        self.runID = runID
        self.stepID = stepID
        self.stepIndex = stepIndex
        self.itemKey = itemKey
        self.attempt = attempt
        self.clock = clock
    }
}

/// An action's result: named outputs stored in the checkpoint (minus secret ones).
public struct ActionResult: Sendable, Equatable {
    /// Outputs by name.
    public var outputs: [String: String]
    /// Names of outputs that are secret: kept out of checkpoints.
    public var secretOutputs: Set<String>

    /// Creates a result.
    public init(outputs: [String: String] = [:], secretOutputs: Set<String> = []) {
        self.outputs = outputs
        self.secretOutputs = secretOutputs
    }

    /// No outputs.
    public static let empty = ActionResult()
}

/// The answer of ``Action/probe(_:context:)``.
public enum ProbeOutcome: Sendable, Equatable {
    /// The effect happened; this is its result.
    case done(ActionResult)
    /// The effect did not happen: safe to run.
    case notDone
    /// Cannot tell: the item is failed as in doubt rather than risk a duplicate.
    case unknown
}

enum IdempotencyKey {
    /// `wo-<run>-<step>-<fnv1a64(key)>`: stable, short, and free of the key's own text.
    static func make(runID: Int64, stepIndex: Int, itemKey: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in itemKey.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "wo-\(runID)-\(stepIndex)-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
