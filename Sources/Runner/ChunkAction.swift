import Synchronization

/// What a chunk step does: its items go to the action in chunks (up to the step's `batch`), and each item
/// gets its own outcome.
///
/// The engine owns everything around the call: it forms the chunks in input order, runs up to the step's
/// concurrency of them at once, retries items by the step's `retry` policy (a chunk that fails as a whole
/// is retried whole; items that fail alone are retried alone), splits a chunk that keeps failing as a
/// whole until the bad item is isolated ("chunk scanning"), checkpoints every item, and writes the step's
/// ``sinks`` in input order. An action does one chunk and returns; it never runs an engine of its own.
/// See docs/engine.md "Chunk steps".
public protocol ChunkAction: Action {
    /// Items per chunk when the step sets no `batch:`.
    var defaultBatch: Int { get }
    /// Chunks in flight when the step sets no `concurrency:` (nil: the playbook's concurrency).
    var defaultConcurrency: Int? { get }
    /// Performs the work for `chunk` (in input order): exactly one outcome per item, in the same order.
    /// A thrown error concerns the whole chunk (classified like ``Action/run(_:context:)``'s). Must honour
    /// task cancellation.
    func run(chunk: [WorkItem], context: ChunkContext) async throws -> [ItemOutcome]
    /// Whether the effects of `chunk`'s items already happened (side-effecting, not idempotent actions),
    /// one answer per item. The default asks ``Action/probe(_:context:)`` item by item.
    func probe(chunk: [WorkItem], context: ChunkContext) async throws -> [ProbeOutcome]
    /// The files the step appends a row to per item, in input order, as its watermark advances.
    var sinks: [OutputSink] { get }
    /// The step's items when the action reads its own input (a step without `for_each`): nil, the
    /// step's `for_each`.
    var items: ItemSource? { get }
    /// The files or directories the action reads, fingerprinted into the run's identity, so a changed
    /// input is named on resume instead of resumed silently.
    var inputPaths: [String] { get }
    /// Makes ready what the step's first chunk needs (a connection, a signed-in session). The engine calls
    /// it once as the step starts, beside the reading of its input, so that work is not on the first
    /// chunk's path (a resumed run reads and skips its finished rows meanwhile). It returns nothing: a
    /// failure here is met again, and reported, by the first chunk. The default does nothing.
    func prepare() async
}

extension ChunkAction {
    public var defaultBatch: Int { 100 }
    public var defaultConcurrency: Int? { nil }
    public var sinks: [OutputSink] { [] }
    public var items: ItemSource? { nil }
    public var inputPaths: [String] { [] }
    public func prepare() async {}

    public func probe(chunk: [WorkItem], context: ChunkContext) async throws -> [ProbeOutcome] {
        var answers: [ProbeOutcome] = []
        for item in chunk { answers.append(try await probe(item, context: context.itemContext(item))) }
        return answers
    }

    /// One item as a chunk of one: the outcome's error is thrown as the ``ActionError`` it describes.
    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let chunkContext = ChunkContext(
            runID: context.runID, stepID: context.stepID, stepIndex: context.stepIndex, attempt: context.attempt,
            clock: context.clock)
        let outcomes = try await run(chunk: [item], context: chunkContext)
        guard outcomes.count == 1 else {
            throw ActionError.permanent("action '\(name)' answered \(outcomes.count) outcomes for one item")
        }
        switch outcomes[0] {
        case .succeeded(let result): return result
        case .rejected(let reason, _): throw ActionError.rejected(reason)
        case .failed(let errorClass, let message): throw ActionError(errorClass, message)
        }
    }
}

/// One item's outcome in a chunk.
public enum ItemOutcome: Sendable, Equatable {
    /// Done; the outputs are checkpointed (minus secret ones) and feed the step's sinks.
    case succeeded(ActionResult)
    /// Invalid input: never retried. `outputs` (never secret) feed the sinks, e.g. a rejects file's columns.
    case rejected(reason: String, outputs: [String: String] = [:])
    /// Failed; retried when the step's policy retries `ErrorClass`.
    case failed(ErrorClass, String)
}

/// What a chunk action learns about the chunk it runs.
public struct ChunkContext: Sendable {
    /// The checkpoint run id (0 when the engine runs without a store).
    public var runID: Int64
    /// The step's id.
    public var stepID: String
    /// The step's index in the plan.
    public var stepIndex: Int
    /// The highest attempt number among the chunk's items (1 for a first attempt), counting earlier
    /// invocations of a resumed run.
    public var attempt: Int
    /// The engine's clock.
    public var clock: any RunnerClock
    /// The turn of this chunk in input order (a first attempt of a chunk as the feed handed it out).
    let turn: InputOrderGate.Turn?
    /// The step's progress, where ``count(_:_:)`` adds up (nil outside a chunk step: counts are dropped).
    let work: ProgressBox?

    /// Creates a context.
    public init(runID: Int64, stepID: String, stepIndex: Int, attempt: Int, clock: any RunnerClock) {
        self.init(
            runID: runID, stepID: stepID, stepIndex: stepIndex, attempt: attempt, clock: clock, turn: nil, work: nil)
    }

    init(
        runID: Int64, stepID: String, stepIndex: Int, attempt: Int, clock: any RunnerClock, turn: InputOrderGate.Turn?,
        work: ProgressBox?
    ) {
        self.runID = runID
        self.stepID = stepID
        self.stepIndex = stepIndex
        self.attempt = attempt
        self.clock = clock
        self.turn = turn
        self.work = work
    }

    /// Adds `amount` to this invocation's count of `measure` for the step (keys sent, requests made,
    /// files decrypted: ``StepProgress/work``, the run report's per-step `work`), so an operator, and a
    /// test, can see what a resumed run did again (a count of 0 still names the measure). Outside a chunk
    /// step the count is dropped.
    public func count(_ measure: String, _ amount: Int = 1) {
        guard let work else { return }
        work.withLock { $0.work[measure, default: 0] += amount }
    }

    /// Runs `admit` after the admission of every earlier chunk of the step (in input order) and before any
    /// later one: for rules that depend on earlier rows, such as "the first row with a key wins", while the
    /// chunks themselves run concurrently. A chunk that never calls it holds no one up (its turn passes
    /// when its first attempt ends). On a retry, a scanned half or outside a chunk step, `admit` runs at
    /// once: its items were admitted on the first attempt.
    public func inInputOrder<T>(_ admit: () throws -> T) async rethrows -> T {
        guard let turn else { return try admit() }
        await turn.wait()
        defer { turn.pass() }
        return try admit()
    }

    /// The key that is the same for every attempt of `item` in this run, across resumes (see
    /// ``ActionContext/idempotencyKey``).
    public func idempotencyKey(for item: WorkItem) -> String {
        IdempotencyKey.make(runID: runID, stepIndex: stepIndex, itemKey: item.key)
    }

    /// The single-item context of `item` (for per-item hooks such as `when:` and event reports).
    public func itemContext(_ item: WorkItem) -> ActionContext {
        ActionContext(
            runID: runID, stepID: stepID, stepIndex: stepIndex, itemKey: item.key, attempt: attempt, clock: clock)
    }
}

/// The turns of a step's chunks in input order, for ``ChunkContext/inInputOrder(_:)``.
final class InputOrderGate: Sendable {
    private struct State {
        /// The next turn to go.
        var next = 0
        /// Turns that passed out of order (their chunk ended before its turn came).
        var passed: Set<Int> = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// One chunk's turn.
    final class Turn: Sendable {
        let gate: InputOrderGate
        let number: Int
        private let done = Atomic<Bool>(false)

        init(gate: InputOrderGate, number: Int) {
            self.gate = gate
            self.number = number
        }

        /// Waits until every earlier turn has passed.
        func wait() async { await gate.wait(for: number) }

        /// Lets the next turn go (once; later calls do nothing).
        func pass() {
            if !done.exchange(true, ordering: .acquiringAndReleasing) { gate.pass(number) }
        }
    }

    private func wait(for number: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.next >= number { return true }
                state.waiters[number] = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func pass(_ number: Int) {
        let woken = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.passed.insert(number)
            while state.passed.remove(state.next) != nil { state.next += 1 }
            return state.waiters.removeValue(forKey: state.next)
        }
        woken?.resume()
    }
}
