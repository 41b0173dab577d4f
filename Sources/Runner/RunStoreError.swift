import TextFormats

/// Why a run cannot be opened or checkpointed.
public struct RunStoreError: CodedError, Sendable {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// Another live process holds the run's lock.
        case lockHeld(pid: Int32, host: String)
        /// The unfinished run was started with a different playbook, inputs or variables.
        case identityChanged([String])
        /// Retry-failed found no earlier run of the playbook.
        case noRunToRetry
        /// The checkpoint database failed.
        case database
        /// The run was checkpointed by an older version (one row per item, no watermarks): it cannot be
        /// resumed or retried; start it fresh.
        case olderCheckpointFormat
        /// A chunk lease's epoch moved on (another worker took the chunk after this one's lease lapsed), or
        /// the chunk is done: the write was refused and nothing of it happened.
        case leaseLost
    }

    /// The kind of failure.
    public var code: Code
    /// The run concerned, when there is one.
    public var runID: Int64?
    /// What happened, for the user.
    public var message: String

    init(_ code: Code, runID: Int64?, _ message: String) {
        self.code = code
        self.runID = runID
        self.message = message
    }

    /// The process exit code the CLI uses: 75 (EX_TEMPFAIL) while a lock is held, 2 otherwise.
    public var exitCode: Int32 {
        if case .lockHeld = code { return 75 }
        return 2
    }

    /// Whether a chunk lease was lost (``Code/leaseLost``).
    public var isLeaseLost: Bool { code == .leaseLost }
}
