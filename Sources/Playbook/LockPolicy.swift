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

    /// What must not overlap (`lock: {scope: ...}`).
    public enum Scope: String, Sendable, Hashable, CaseIterable {
        /// Runs of the same work: the playbook on the same inputs with the same work vars (the default;
        /// two imports of different files run side by side).
        case identity
        /// Every run of the playbook's name (a sweep over all the grants of an identity).
        case name
    }

    /// The behaviour.
    public var mode: Mode
    /// For `wait`: how long to wait before failing; `nil` waits without limit.
    public var timeout: Duration?
    /// What the lock covers.
    public var scope: Scope

    /// Creates a policy.
    public init(mode: Mode = .fail, timeout: Duration? = nil, scope: Scope = .identity) {
        self.mode = mode
        self.timeout = timeout
        self.scope = scope
    }
}
