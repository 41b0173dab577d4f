/// The state of one item in the checkpoint. See docs/engine.md for the transitions.
public enum ItemState: String, Sendable, CaseIterable {
    /// Known but not started (an intent was withdrawn at a stop).
    case pending
    /// Intent committed: a side-effecting action may have been called. In doubt after a crash.
    case started
    /// Done; never run again.
    case succeeded
    /// Failed after its attempts (or in doubt with an unknown probe).
    case failed
    /// Bad input: reported in the rejects, never retried.
    case rejected
    /// Not run because a need of its step failed.
    case skipped
}

/// The status of a run.
public enum RunStatus: String, Sendable, CaseIterable {
    /// In progress, or killed while in progress (the lock says which).
    case running
    /// Stopped by a signal/`stop()`; resumable.
    case interrupted
    /// Stopped by a failure budget or a fatal error; resumable.
    case aborted
    /// Every step finished or was skipped (items may have failed).
    case completed
    /// Replaced by a fresh start.
    case abandoned

    /// True for runs that a plain re-run resumes.
    public var isUnfinished: Bool { self == .running || self == .interrupted || self == .aborted }
}

/// What identifies a run: re-running the same playbook on the same inputs with the same variables
/// resumes it.
public struct RunIdentity: Sendable, Equatable {
    /// The playbook's name.
    public var playbookName: String
    /// A hash of the playbook's text.
    public var playbookHash: String
    /// Input name to a fingerprint of its content (a hash, or size+mtime).
    public var inputFingerprints: [String: String]
    /// The run's variables, WITHOUT secret ones: they are stored in clear.
    public var vars: [String: String]
    /// The vars that do not change the work (declared `identity: false`: how many requests in flight,
    /// how many rows a chunk): kept with the run, but a resume may change them.
    public var looseVars: Set<String>

    /// Creates an identity.
    public init(
        playbookName: String, playbookHash: String, inputFingerprints: [String: String] = [:],
        vars: [String: String] = [:], looseVars: Set<String> = []
    ) {
        self.playbookName = playbookName
        self.playbookHash = playbookHash
        self.inputFingerprints = inputFingerprints
        self.vars = vars
        self.looseVars = looseVars
    }

    /// What differs from `other` in the work, in words ("the playbook changed", "input 'keys' changed",
    /// "variable 'output' changed"): the vars of ``looseVars`` never count.
    public func differences(from other: RunIdentity) -> [String] {
        var out: [String] = []
        if playbookHash != other.playbookHash { out.append("the playbook changed") }
        for name in Set(inputFingerprints.keys).union(other.inputFingerprints.keys).sorted()
        where inputFingerprints[name] != other.inputFingerprints[name] {
            out.append("input '\(name)' changed")
        }
        for name in Set(vars.keys).union(other.vars.keys).sorted()
        where vars[name] != other.vars[name] && !looseVars.contains(name) {
            out.append("variable '\(name)' changed")
        }
        return out
    }

    /// What the work is, as a key the store finds runs by: a hash of the playbook's name and text, the
    /// inputs' fingerprints and the vars that change the work, in a fixed order. Runs with the same key
    /// are the same work (a found run is then compared in full, so a collision cannot resume another).
    public var key: String {
        var hash = KeysHash.initial
        hash = KeysHash.adding(playbookName, to: hash)
        hash = KeysHash.adding(playbookHash, to: hash)
        for name in inputFingerprints.keys.sorted() {
            hash = KeysHash.adding("input:" + name, to: hash)
            hash = KeysHash.adding(inputFingerprints[name] ?? "", to: hash)
        }
        for name in vars.keys.sorted() where !looseVars.contains(name) {
            hash = KeysHash.adding("var:" + name, to: hash)
            hash = KeysHash.adding(vars[name] ?? "", to: hash)
        }
        return String(hash, radix: 16)
    }
}

/// A row of the `runs` table.
public struct RunRecord: Sendable, Equatable {
    public var id: Int64
    public var identity: RunIdentity
    public var status: RunStatus
    /// Unix times (seconds).
    public var startedAt: Double
    public var endedAt: Double?
    /// Item counts by state, as of the last flush or the end.
    public var counts: [ItemState: Int]
    /// The lock holder, when held.
    public var lockPID: Int32?
    public var lockHost: String?
    public var lockHeartbeat: Double?
    /// Why it ended (abort reason), when it did.
    public var message: String?
}

/// A row of the `items` table.
public struct ItemRecord: Sendable, Equatable {
    public var step: String
    public var key: String
    public var state: ItemState
    public var attempts: Int
    public var errorClass: String?
    public var message: String?
    /// The result's outputs as a JSON object (secrets removed).
    public var resultJSON: String?
    public var idempotencyKey: String?
}

/// A row of the `events` table.
public struct RunEvent: Sendable, Equatable {
    public var at: Double
    public var kind: String
    public var step: String?
    public var message: String?
}
