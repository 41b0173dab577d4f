internal import CYAML

/// A validated playbook: vars, secrets, inputs and a graph of steps, with the settings the engine needs.
///
/// Build one with ``Playbook/load(contentsOf:)``, ``Playbook/parse(_:file:)`` or
/// ``Playbook/validate(_:file:options:)``. The schema is documented in docs/playbooks.md.
/// Every field is a value; the whole model is `Sendable`.
public struct Playbook: Sendable, Hashable {
    /// The playbook name (also the lock name for overlapping runs).
    public var name: String
    /// Free text.
    public var description: String?
    /// Declared vars, by name.
    public var vars: [String: VarDeclaration]
    /// Declared secrets, by name.
    public var secrets: [String: SecretDeclaration]
    /// Declared inputs, by name.
    public var inputs: [String: InputDeclaration]
    /// Steps in file order.
    public var steps: [Step]
    /// Playbook-wide limit on items in flight across all steps (default 4).
    public var concurrency: Int
    /// Settings applied to steps that do not set them.
    public var defaults: StepSettings
    /// When `walletops due` considers the playbook due, if scheduled.
    public var schedule: CronExpression?
    /// What to do when another run of this playbook is in progress.
    public var lock: LockPolicy
    /// The SHA-256 of the file bytes; a run refuses to resume when it changed.
    public var hash: PlaybookHash
    /// The file name given to the loader.
    public var file: String

    /// The default playbook-wide concurrency.
    public static let defaultConcurrency = 4

    /// The step with an id.
    public func step(_ id: String) -> Step? { steps.first { $0.id == id } }

    /// Step settings with defaults applied.
    public func effectiveSettings(for step: Step) -> EffectiveStepSettings {
        let s = step.settings.merged(over: defaults)
        return EffectiveStepSettings(
            concurrency: min(s.concurrency ?? concurrency, concurrency), rateLimit: s.rateLimit,
            retry: s.retry ?? .none, timeout: s.timeout, maxFailures: s.maxFailures ?? .count(0))
    }

    /// Step ids in an order where every step comes after the steps it needs (file order among ready steps).
    public var topologicalOrder: [String] {
        var done = Set<String>()
        var order: [String] = []
        var progress = true
        while order.count < steps.count, progress {
            progress = false
            for step in steps where !done.contains(step.id) && step.needs.allSatisfy(done.contains) {
                done.insert(step.id)
                order.append(step.id)
                progress = true
            }
        }
        return order
    }

    /// The libyaml version this build links against.
    public static var yamlLibraryVersion: String { String(cString: yaml_get_version_string()) }
}
