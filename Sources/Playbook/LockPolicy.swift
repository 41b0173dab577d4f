/// What a run does when another run of the same playbook holds its lock (`lock: {policy: ...}`).
public struct LockPolicy: Sendable, Hashable {
    /// The behaviour on an overlapping run.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Exit successfully without running (the usual choice for cron).
        case skip
        /// Wait for the other run to finish, up to ``LockPolicy/timeout``.
        case wait
        /// Exit with an error (the default).
        case fail
    }

    /// The behaviour.
    public var mode: Mode
    /// For `wait`: how long to wait before failing; `nil` waits without limit.
    public var timeout: Duration?

    /// Creates a policy.
    public init(mode: Mode = .fail, timeout: Duration? = nil) {
        self.mode = mode
        self.timeout = timeout
    }
}
