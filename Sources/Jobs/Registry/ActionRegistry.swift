import Foundation
import Playbook
import Runner

/// The actions a playbook step may name, mapped to the engine's ``Runner/Action`` values.
///
/// Registration is open: the built-ins (`noop`, `sleep`, `fail`, `append`, `write`) are in
/// ``builtIn``; another module adds its own with ``register(_:_:)`` and passes the registry to the
/// run commands. `validate` reports a step whose action is not registered.
///
/// ```swift
/// var registry = ActionRegistry.builtIn
/// registry.register("wallet.create") { request in WalletCreateAction(parameters: request) }
/// ```
public struct ActionRegistry: Sendable {
    /// Makes the action of one step.
    public typealias Factory = @Sendable (ActionRequest) throws -> any Action

    private var factories: [String: Factory] = [:]

    /// An empty registry.
    public init() {}

    /// Registers (or replaces) the action `name`.
    public mutating func register(_ name: String, _ factory: @escaping Factory) {
        factories[name] = factory
    }

    /// The registered names.
    public var names: Set<String> { Set(factories.keys) }

    /// The action for `request`'s step.
    ///
    /// - Throws: ``ActionSetupError`` (the run's exit 64, or 65, 66, 74 for a file the step names) for an
    ///   unknown action or bad parameters.
    public func action(for request: ActionRequest) throws(ActionSetupError) -> any Action {
        guard let factory = factories[request.step.action] else {
            throw ActionSetupError.usage("step '\(request.step.id)': unknown action '\(request.step.action)'")
        }
        do {
            return try factory(request)
        } catch let error as ActionSetupError {
            throw error
        } catch {
            throw ActionSetupError.usage("step '\(request.step.id)' (\(request.step.action)): \(error)")
        }
    }
}

/// What an action factory learns about its step: the step, the playbook, the run's template
/// context (vars, environment, secrets) to render `with:` parameters, once or per item, the run
/// command's own settings (`--core`), and the services the command hands its job actions.
public struct ActionRequest: Sendable {
    /// The step.
    public var step: Step
    /// The playbook.
    public var playbook: Playbook
    /// Vars, environment and secrets (no item).
    public var context: TemplateContext
    /// The served core named by the run command's `--core`, or nil when the command has none. It comes
    /// before a step's `core` parameter and `$WALLETOPS_CORE` (see ``coreURL()``).
    public var core: URL?
    /// The home, the core and the working directory of the command, for the job actions.
    public var services: JobServices
    /// Says something the operator should see before the run (an input column that is not read) on
    /// standard error, as `warning: ...`.
    public var warn: @Sendable (String) -> Void

    /// Creates a request.
    public init(
        step: Step, playbook: Playbook, context: TemplateContext, core: URL? = nil, services: JobServices,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.step = step
        self.playbook = playbook
        self.context = context
        self.core = core
        self.services = services
        self.warn = warn
    }

    /// The step's `with:` rendered for `item` (nil: outside any item); secrets are available.
    public func parameters(item: WorkItem? = nil) throws -> [String: TemplateValue] {
        var context = context
        if let item { context.item = .object(item.fields.mapValues(TemplateValue.string)) }
        return try step.parameters(in: context)
    }

    /// A text parameter rendered without an item, or nil when absent.
    public func text(_ name: String) throws -> String? {
        guard let parameter = step.with[name] else { return nil }
        var context = context
        context.allowsSecrets = true
        let value = try parameter.evaluate(in: context)
        if case .string(let text) = value { return text }
        if case .null = value { return nil }
        return value.description
    }

    /// A required text parameter.
    public func requiredText(_ name: String) throws -> String {
        guard let value = try text(name), !value.isEmpty else {
            throw ActionSetupError.usage("step '\(step.id)' (\(step.action)): missing parameter with.\(name)")
        }
        return value
    }

    /// A file parameter as an absolute path, a relative one resolved against the command's working
    /// directory (``JobServices/workingDirectory``), not the process's; nil when absent or empty.
    public func path(_ name: String) throws -> String? {
        guard let text = try text(name), !text.isEmpty else { return nil }
        return services.path(text)
    }

    /// A required file parameter, resolved as ``path(_:)`` does.
    public func requiredPath(_ name: String) throws -> String {
        services.path(try requiredText(name))
    }
}

/// A step that cannot be made into an action, before the run starts: its parameters are wrong (the
/// run's exit 64), or a file it names is missing, unreadable or malformed (66, 74, 65).
public struct ActionSetupError: Error, Sendable, CustomStringConvertible, InputProblemReporting {
    /// What is wrong and where, for the operator; never a secret.
    public let message: String
    /// The named file's problem; nil: the step's parameters are wrong.
    public let inputProblem: InputProblem?

    /// A failure with `message`; `inputProblem` when a file the step names is at fault.
    public init(_ message: String, inputProblem: InputProblem? = nil) {
        self.message = message
        self.inputProblem = inputProblem
    }

    /// The step's parameters are wrong.
    public static func usage(_ message: String) -> ActionSetupError { ActionSetupError(message) }

    public var description: String { message }
}
