import Playbook
import Synchronization

/// Runs a ``RunPlan``: steps in graph order, items streamed through bounded worker pools, outcomes
/// checkpointed in batches into a ``RunHandle``.
///
/// Lifecycle: `run()` once; `stop()` from anywhere (a signal handler) drains: no new item starts,
/// in-flight items get ``Options/gracePeriod`` to finish, checkpoints are flushed, and the run ends
/// `interrupted`. A second `stop()` (or the grace period running out) cancels in-flight items; their
/// checkpoints stay `started`/absent, so a resume finishes them. See docs/engine.md.
public final class Engine: Sendable {
    /// Tuning and hooks.
    public struct Options: Sendable {
        /// The clock for rate limits, backoffs, attempt timeouts and the grace period.
        public var clock: any RunnerClock
        /// Checkpoint flush period (real time).
        public var flushInterval: Duration
        /// Outcomes that trigger a flush before the period ends.
        public var flushBatch: Int
        /// Items read and prepared (intents committed) at a time.
        public var readBatch: Int
        /// Items buffered per step ahead of the workers.
        public var window: Int
        /// How long in-flight items may run after the first `stop()`.
        public var gracePeriod: Duration
        /// Receives progress snapshots every `flushInterval` and at the end.
        public var progress: (@Sendable (ProgressEvent) -> Void)?
        /// Chunk steps are shared with other processes through the run store (nil: this process works
        /// every item itself).
        public var leasing: Leasing?
        /// Whether an ``ImmediateAction`` is called through ``ImmediateAction/runImmediately(_:context:)``
        /// (true, the default); false runs every action through `run`, to measure what the shortcut still
        /// buys or to rule it out (docs/bench.md "Tuning mechanisms and how to switch them off").
        public var immediateActions: Bool
        /// Called once, without waiting for it, when no action of the run will be called again (every step's
        /// workers have ended, or the run stops with steps unstarted), before the run's last checkpoints and
        /// outputs are written. Why: the caller can put away what the actions used (the embedded core's
        /// log) beside that work instead of after the run. Default nil.
        public var actionsEnded: (@Sendable () -> Void)?

        /// Defaults (the parameters' values below): real clock, immediate actions on.
        public init(
            clock: any RunnerClock = SystemClock(), flushInterval: Duration = .milliseconds(200),
            flushBatch: Int = 1000, readBatch: Int = 256, window: Int = 1024, gracePeriod: Duration = .seconds(10),
            progress: (@Sendable (ProgressEvent) -> Void)? = nil, leasing: Leasing? = nil, immediateActions: Bool = true
        ) {
            self.clock = clock
            self.flushInterval = flushInterval
            self.flushBatch = max(1, flushBatch)
            self.readBatch = max(1, readBatch)
            self.window = max(1, window)
            self.gracePeriod = gracePeriod
            self.progress = progress
            self.leasing = leasing
            self.immediateActions = immediateActions
        }
    }

    enum Phase: Int {
        case idle = 0, running, draining, cancelling
    }

    struct Control {
        var feeds: [Int: StepFeed<PreparedItem>] = [:]
        var task: Task<RunSummary, Never>?
        var graceTask: Task<Void, Never>?
        var abortReason: String?
        var stopReason: String?
        /// Set with `stopReason` when an action's error stopped the run (``ActionError/stopCause``).
        var stopCause: RunStopCause?
        /// Set with `abortReason` when an input's problem aborted the run.
        var inputProblem: InputProblem?
        var ran = false
        /// The steps whose actions will not be called again in this run (ended or skipped).
        var stepsWithoutCalls: Set<Int> = []
        /// Whether ``Options/actionsEnded`` was called.
        var actionsEndedCalled = false
    }

    /// The plan being run.
    public let plan: RunPlan
    /// The checkpoint target (nil: run without checkpoints).
    public let checkpoint: RunHandle?
    let options: Options
    let phase = Atomic<Int>(Phase.idle.rawValue)
    let control = Mutex(Control())
    let pending: Mutex<CheckpointBuffer>
    let progressState: [ProgressBox]
    let limiter: ConcurrencyLimiter?
    let realClock = SystemClock()
    /// The outputs of the single-item steps that succeeded (this invocation or, on resume, an earlier one).
    let finishedOutputs = Mutex(StepOutputs())

    /// Prepares an engine. Throws ``PlanError`` for an invalid plan.
    public init(plan: RunPlan, checkpoint: RunHandle?, options: Options = Options()) throws {
        try plan.validate()
        self.plan = plan
        self.checkpoint = checkpoint
        self.options = options
        self.pending = Mutex(CheckpointBuffer(stepCount: plan.steps.count, batch: options.flushBatch))
        self.progressState = plan.steps.map {
            ProgressBox(StepProgress(id: $0.id, status: .waiting, total: $0.items.count))
        }
        // The global limiter is needed only when the steps together could exceed it.
        let demand = plan.steps.reduce(0) { $0 + min($1.concurrency, plan.concurrency) }
        self.limiter = demand > plan.concurrency ? ConcurrencyLimiter(limit: plan.concurrency) : nil
    }

    /// Opens (or resumes) the run of `identity` in `store` and runs `plan` to the end: the entry point
    /// for the CLI and benchmarks.
    public static func run(
        plan: RunPlan, store: RunStore, identity: RunIdentity,
        mode: RunStore.OpenMode = .resumeOrStart(acceptChanges: false), options: Options = Options()
    ) async throws -> RunSummary {
        let handle = try await store.openRun(identity, mode: mode)
        return try await Engine(plan: plan, checkpoint: handle, options: options).run()
    }

    /// Runs the plan once. Cancelling the calling task cancels in-flight items like a second `stop()`.
    public func run() async throws -> RunSummary {
        try await launch { await self.body() }
    }

    /// Runs `work` as the engine's one run (``run()`` or ``join()``): a second call throws. A second
    /// `stop()` or the caller's cancellation cancels `work`'s task.
    func launch(_ work: @escaping @Sendable () async -> RunSummary) async throws -> RunSummary {
        let first = control.withLock { state -> Bool in
            defer { state.ran = true }
            return !state.ran
        }
        guard first else { throw PlanError("an engine runs its plan once; make a new Engine to run again") }
        // A stop() that came before the run left the phase draining: the run then ends at once, interrupted.
        _ = phase.compareExchange(
            expected: Phase.idle.rawValue, desired: Phase.running.rawValue, ordering: .acquiringAndReleasing)
        let task = Task { await work() }
        control.withLock { $0.task = task }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            self.cancelNow()
        }
    }

    /// First call: drain (stop scheduling, let in-flight items finish within the grace period, flush).
    /// Second call: cancel in-flight items now.
    public func stop() {
        if movesToDraining(from: .running) || movesToDraining(from: .idle) {
            control.withLock { if $0.stopReason == nil && $0.abortReason == nil { $0.stopReason = "stopped" } }
            beginDrain()
        } else {
            cancelNow()
        }
    }

    var isRunning: Bool { phase.load(ordering: .relaxed) == Phase.running.rawValue }
    var isCancelling: Bool { phase.load(ordering: .relaxed) == Phase.cancelling.rawValue }

    /// Stops the run because of a failure budget or a fatal error (first reason wins); `inputProblem`
    /// when the error is an input's (the exit code says which, ``RunSummary/exitCode``).
    func abort(_ reason: String, inputProblem: InputProblem? = nil) {
        control.withLock { state in
            if state.abortReason == nil {
                state.abortReason = reason
                state.inputProblem = inputProblem
            }
        }
        if movesToDraining(from: .running) { beginDrain() }
    }

    /// Stops the run because every later item would fail alike (a service its items need is unreachable,
    /// its sign-in is refused): a drain, as for `stop()`, that ends the run interrupted with `reason`
    /// (unless a stop or an abort came first).
    func suspend(_ reason: String, cause: RunStopCause) {
        control.withLock { state in
            if state.stopReason == nil && state.abortReason == nil {
                state.stopReason = reason
                state.stopCause = cause
            }
        }
        if movesToDraining(from: .running) { beginDrain() }
    }

    /// Moves the phase from `expected` to draining; false when it was not `expected`. Only the caller that
    /// moved it starts the drain, so a drain starts once.
    private func movesToDraining(from expected: Phase) -> Bool {
        phase.compareExchange(
            expected: expected.rawValue, desired: Phase.draining.rawValue, ordering: .acquiringAndReleasing
        ).exchanged
    }

    private func beginDrain() {
        let feeds = control.withLock { Array($0.feeds) }
        for (index, feed) in feeds { withdraw(feed.close(), stepIndex: index) }
        let clock = options.clock
        let grace = options.gracePeriod
        let graceTask = Task {
            do {
                try await clock.sleep(until: clock.now() + grace)
                self.cancelNow()
            } catch {}
        }
        control.withLock { $0.graceTask = graceTask }
    }

    func cancelNow() {
        let previous = phase.exchange(Phase.cancelling.rawValue, ordering: .acquiringAndReleasing)
        guard previous != Phase.cancelling.rawValue else { return }
        let (feeds, task) = control.withLock { state in
            if state.stopReason == nil && state.abortReason == nil { state.stopReason = "cancelled" }
            return (Array(state.feeds), state.task)
        }
        for (index, feed) in feeds { withdraw(feed.close(), stepIndex: index) }
        task?.cancel()
    }

    /// Items a closed feed never handed out: their intents are withdrawn (back to `pending`), except
    /// those that were already in doubt from an earlier crash, which must still be probed.
    func withdraw(_ items: [PreparedItem], stepIndex: Int) {
        guard checkpoint != nil, plan.steps[stepIndex].needsIntents else { return }
        let stepID = plan.steps[stepIndex].id
        let updates = items.filter { !$0.needsProbe }.map {
            RunHandle.Update(
                step: stepID, key: $0.item.key, index: $0.index, state: .pending, attempts: $0.attempts,
                errorClass: nil, message: nil, resultJSON: nil, idempotencyKey: nil)
        }
        pending.withLock { buffer in
            for update in updates { buffer.append(update, stepIndex: stepIndex, closesItem: false) }
        }
    }

    /// Registers a running step's feed so a stop can close it; false when the run is already stopping.
    func register(_ feed: StepFeed<PreparedItem>, stepIndex: Int) -> Bool {
        control.withLock { state in
            state.feeds[stepIndex] = feed
        }
        if !isRunning {
            withdraw(feed.close(), stepIndex: stepIndex)
            unregister(stepIndex: stepIndex)
            return false
        }
        return true
    }

    func unregister(stepIndex: Int) {
        _ = control.withLock { $0.feeds.removeValue(forKey: stepIndex) }
    }

    // MARK: The run

    private func body() async -> RunSummary {
        let started = realClock.now()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.tick(started: started) }
            await self.driveGraph()
            group.cancelAll()
        }
        // A stop can leave steps that never started: no action is called after the graph either way.
        callActionsEnded()
        await flush(final: true)
        let (abortReason, stopReason, stopCause, graceTask, inputProblem) = control.withLock {
            ($0.abortReason, $0.stopReason, $0.stopCause, $0.graceTask, $0.inputProblem)
        }
        graceTask?.cancel()
        var status: RunStatus = .completed
        var reason: String?
        if let abortReason {
            status = .aborted
            reason = abortReason
        } else if !isRunning && !progressState.allSatisfy({ $0.withLock { Self.finished.contains($0.status) } }) {
            // A stop whose grace period saw every step to its end interrupted nothing: the run completed.
            status = .interrupted
            reason = stopReason
        }
        if let checkpoint {
            do {
                try await checkpoint.finish(status: status, message: reason)
            } catch {
                status = .aborted
                reason = "cannot write the checkpoint: \(error)"
            }
        }
        let steps = progressState.map { $0.withLock { $0 } }
        let elapsed = realClock.now() - started
        options.progress?(ProgressEvent(elapsed: elapsed, steps: steps, isFinal: true))
        var summary = RunSummary(
            runID: checkpoint?.runID, status: status, reason: reason, steps: steps, elapsed: elapsed)
        summary.stopCause = status == .interrupted ? stopCause : nil
        if status == .aborted { summary.inputProblem = inputProblem }
        return summary
    }

    /// Records that step `index` calls no action any more; once no step will, calls ``Options/actionsEnded``.
    func actionCallsEnded(step index: Int) {
        let allEnded = control.withLock { control in
            control.stepsWithoutCalls.insert(index)
            return control.stepsWithoutCalls.count == plan.steps.count
        }
        if allEnded { callActionsEnded() }
    }

    /// Calls ``Options/actionsEnded`` unless it was called.
    private func callActionsEnded() {
        guard let hook = options.actionsEnded else { return }
        let first = control.withLock { control in
            defer { control.actionsEndedCalled = true }
            return !control.actionsEndedCalled
        }
        if first { hook() }
    }

    /// The statuses of a step that has nothing left to do in this run.
    static let finished: Set<StepStatus> = [.succeeded, .failed, .skipped]

    private func driveGraph() async {
        var machine = GraphStateMachine(steps: plan.steps.map { ($0.id, $0.needs) })
        await withTaskGroup(of: (Int, Bool).self) { group in
            var commands = machine.handle(isRunning ? .start : .stop)
            var stopSent = !isRunning
            while true {
                for command in commands {
                    switch command {
                    case .startStep(let index):
                        group.addTask { (index, await self.runStep(index)) }
                    case .skipStep(let index, let because):
                        await self.skipStep(index, because: because)
                    case .finish:
                        return
                    }
                }
                guard let (index, succeeded) = await group.next() else { return }
                if !stopSent && !isRunning {
                    stopSent = true
                    _ = machine.handle(.stop)
                }
                commands = machine.handle(.stepFinished(index, succeeded: succeeded))
            }
        }
    }

    /// Flushes checkpoints and reports progress every `flushInterval` until cancelled.
    private func tick(started: Duration) async {
        var last = realClock.now()
        var lastDone = progressState.map { _ in 0 }
        var lastHeartbeat = last
        while !Task.isCancelled {
            do { try await realClock.sleep(until: realClock.now() + options.flushInterval) } catch { return }
            if realClock.now() - lastHeartbeat > .seconds(5) {
                // Every write refreshes the lock heartbeat; an empty one keeps quiet periods (long
                // actions) visible to other hosts.
                if pending.withLock({ $0.count == 0 }) { await write([]) }
                lastHeartbeat = realClock.now()
            }
            await flush()
            let now = realClock.now()
            let seconds = max(1e-9, (now - last).seconds)
            var snapshot: [StepProgress] = []
            for (index, state) in progressState.enumerated() {
                var step = state.withLock { state in
                    state.ratePerSecond = Double(state.done - lastDone[index]) / seconds
                    return state
                }
                if step.status != .running { step.ratePerSecond = 0 }
                lastDone[index] = step.done
                snapshot.append(step)
            }
            last = now
            options.progress?(ProgressEvent(elapsed: now - started, steps: snapshot, isFinal: false))
        }
    }

    // MARK: Checkpoint buffer

    /// Queues an item outcome; true when the batch is full and the caller must flush it (backpressure
    /// on the writer).
    func record(_ update: RunHandle.Update, stepIndex: Int, sinkRows: [[UInt8]]? = nil) -> Bool {
        pending.withLock { buffer in
            buffer.append(update, stepIndex: stepIndex, closesItem: true, sinkRows: sinkRows)
            return buffer.count >= options.flushBatch
        }
    }

    /// Writes every queued update now, with the watermarks they allow (taken on the database queue, so
    /// flushes commit in the order they took their batches).
    func flush(final: Bool = false) async {
        let carry = options.flushInterval
        guard let checkpoint else {
            // No store: only the sinks' rows are kept (written in order, nothing to commit).
            let sinks = pending.withLock { $0.take(now: .zero, carry: carry, final: true).sinks }
            do {
                for batch in sinks { try batch.files.append(batch.bytes) }
            } catch {
                abort("cannot write an output: \(error)")
            }
            return
        }
        do {
            try await checkpoint.flush {
                let now = self.realClock.now()
                return self.pending.withLock { $0.take(now: now, carry: carry, final: final) }
            }
        } catch {
            abort("cannot write checkpoints: \(error)")
        }
    }

    func write(_ batch: [RunHandle.Update]) async {
        guard let checkpoint else { return }
        do {
            try await checkpoint.write(batch)
        } catch {
            abort("cannot write checkpoints: \(error)")
        }
    }
}

/// A step's progress under a lock (a class so the engine can keep one per step in an array).
final class ProgressBox: Sendable {
    private let state: Mutex<StepProgress>
    /// Successes counted without the lock (the workers' inline path), folded into `state` on every read.
    private let quickSuccesses = Atomic<Int>(0)
    init(_ initial: StepProgress) { state = Mutex(initial) }

    func withLock<T>(_ body: (inout StepProgress) -> T) -> T {
        state.withLock { state in
            state.succeeded += quickSuccesses.exchange(0, ordering: .relaxed)
            return body(&state)
        }
    }

    /// Counts successes: one atomic add, no lock.
    func succeededQuickly(_ count: Int = 1) { quickSuccesses.add(count, ordering: .relaxed) }
}
