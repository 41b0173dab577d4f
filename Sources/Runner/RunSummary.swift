import Playbook

/// A step's status as the engine reports it.
public enum StepStatus: String, Sendable, Equatable {
    case waiting, running, succeeded, failed, skipped, interrupted
}

/// A step's progress: counts include items finished by earlier invocations of a resumed run.
public struct StepProgress: Sendable, Equatable {
    /// The step id.
    public var id: String
    /// Where the step is.
    public var status: StepStatus
    /// The number of items, when the source knows it.
    public var total: Int?
    public var succeeded = 0
    public var failed = 0
    public var rejected = 0
    public var skipped = 0
    /// Items found already finished (succeeded, failed or rejected) in the checkpoint and not run again.
    public var resumed = 0
    /// Items finished per second over the last progress interval.
    public var ratePerSecond = 0.0
    /// What the step's action did in this invocation, by measure (``ChunkContext/count(_:_:)``: keys sent,
    /// requests, files decrypted); unlike the item counts, nothing is carried over from earlier
    /// invocations, so a resumed run's figures are its own work.
    public var work: [String: Int] = [:]

    /// Items with an outcome.
    public var done: Int { succeeded + failed + rejected + skipped }

    /// Creates an entry.
    public init(id: String, status: StepStatus, total: Int?) {
        self.id = id
        self.status = status
        self.total = total
    }
}

/// A progress snapshot for the CLI to render.
public struct ProgressEvent: Sendable {
    /// Real time since the run started.
    public var elapsed: Duration
    /// Every step, in plan order.
    public var steps: [StepProgress]
    /// True for the last event of the run.
    public var isFinal: Bool

    /// Creates a snapshot (the engine makes them; displays are tested with their own).
    public init(elapsed: Duration, steps: [StepProgress], isFinal: Bool) {
        self.elapsed = elapsed
        self.steps = steps
        self.isFinal = isFinal
    }
}

/// What a run ended as, and the process exit code it maps to.
public struct RunSummary: Sendable {
    /// The checkpoint run id (nil without a store).
    public var runID: Int64?
    /// `completed`, `aborted` or `interrupted`.
    public var status: RunStatus
    /// Why the run aborted or was interrupted.
    public var reason: String?
    /// Per-step counts.
    public var steps: [StepProgress]
    /// Real time the invocation took.
    public var elapsed: Duration
    /// Why an action's error stopped the run (``ActionError/stopCause``): a service it needs was
    /// unreachable, or its sign-in was refused; `reason` then says which. The status is `interrupted`:
    /// resume when the service is back, or once signed in again.
    public var stopCause: RunStopCause?
    /// Whether the run stopped because a service it needs was unreachable.
    public var stoppedUnavailable: Bool { stopCause == .unavailable }
    /// Set when the run aborted because an input is missing, unreadable or holds bad data.
    public var inputProblem: InputProblem?

    public var succeeded: Int { steps.reduce(0) { $0 + $1.succeeded } }
    public var failed: Int { steps.reduce(0) { $0 + $1.failed } }
    public var rejected: Int { steps.reduce(0) { $0 + $1.rejected } }
    public var skipped: Int { steps.reduce(0) { $0 + $1.skipped } }

    /// The process exit code: 0 when everything succeeded; 1 when the run completed with failed,
    /// rejected or skipped items or a skipped step, or when its sign-in was refused (it stopped, resumable
    /// once signed in again: a retry later without the operator would be refused alike); 2 when a failure
    /// budget or a fatal error aborted it; 65, 66 or 74 (sysexits) when an input's bad data, absence or
    /// unreadability aborted it; 75 when it was interrupted (resume later). Never 0 when anything failed.
    public var exitCode: Int32 {
        switch status {
        case .interrupted where stopCause == .unauthorized: return 1
        case .interrupted, .running: return 75
        case .aborted where inputProblem == .invalidData: return 65
        case .aborted where inputProblem == .missing: return 66
        case .aborted where inputProblem == .unreadable: return 74
        case .aborted, .abandoned: return 2
        case .completed:
            let anyBad =
                failed + rejected + skipped > 0 || steps.contains { $0.status == .skipped || $0.status == .failed }
            return anyBad ? 1 : 0
        }
    }
}
