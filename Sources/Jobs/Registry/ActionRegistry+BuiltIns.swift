import Foundation
import Playbook
import Runner

extension ActionRegistry {
    /// The built-in actions, for testing playbooks and the engine:
    ///
    /// | action | parameters (`with:`) | does |
    /// |---|---|---|
    /// | `noop` | none | succeeds |
    /// | `sleep` | `duration` (default `100ms`) | waits, then succeeds |
    /// | `fail` | `probability` (0–1, default 1), `class` (`retryable`, `permanent`, `in_doubt`), `reject` (bool), `seed`, `message` (per item) | fails a reproducible fraction of attempts |
    /// | `append` | `path` | appends the item key as a line (side-effecting, probed on resume) |
    /// | `write` | `path`, `format` (`csv`, `jsonl`), `columns` (list) | writes one row per item |
    public static var builtIn: ActionRegistry {
        var registry = ActionRegistry()
        registry.register("noop") { _ in NoopAction() }
        registry.register("sleep") { request in
            let text = try request.text("duration") ?? "100ms"
            guard let duration = DurationText.parse(text) else {
                throw ActionSetupError.usage("step '\(request.step.id)' (sleep): bad duration '\(text)'")
            }
            return SleepAction(duration: duration)
        }
        registry.register("fail") { request in try BuiltInFail(request) }
        registry.register("append") { request in AppendAction(path: try request.requiredPath("path")) }
        registry.register("write") { request in
            let format: WriteAction.Format
            switch try request.text("format") ?? "csv" {
            case "csv": format = .csv
            case "jsonl": format = .jsonLines
            case let other:
                throw ActionSetupError.usage("step '\(request.step.id)' (write): format '\(other)' is not csv or jsonl")
            }
            var columns: [String] = []
            if let parameter = request.step.with["columns"] {
                switch try parameter.evaluate(in: request.context) {
                case .list(let values): columns = values.map(\.description)
                case let value: columns = value.description.split(separator: ",").map(String.init)
                }
            }
            return WriteAction(path: try request.requiredPath("path"), format: format, columns: columns)
        }
        return registry
    }
}

/// `fail`: Runner's ``FailAction`` with the parameters of `with:`, and an optional per-item `message`
/// (a template: it may show item fields, and is redacted like every other message).
struct BuiltInFail: ImmediateAction {
    let inner: FailAction
    let request: ActionRequest
    let hasMessage: Bool

    init(_ request: ActionRequest) throws {
        let step = request.step.id
        let probability = Double(try request.text("probability") ?? "1")
        guard let probability, (0...1).contains(probability) else {
            throw ActionSetupError.usage("step '\(step)' (fail): probability must be a number from 0 to 1")
        }
        let errorClass: ErrorClass
        switch try request.text("class") ?? "permanent" {
        case "retryable": errorClass = .retryable
        case "permanent": errorClass = .permanent
        case "in_doubt": errorClass = .inDoubt
        case let other:
            throw ActionSetupError.usage(
                "step '\(step)' (fail): class '\(other)' is not retryable, permanent or in_doubt")
        }
        let reject = ["true", "yes", "1"].contains(try request.text("reject") ?? "false")
        guard let seed = UInt64(try request.text("seed") ?? "0") else {
            throw ActionSetupError.usage("step '\(step)' (fail): seed must be a non-negative integer")
        }
        inner = FailAction(probability: probability, errorClass: errorClass, reject: reject, seed: seed)
        self.request = request
        hasMessage = request.step.with["message"] != nil
    }

    var name: String { "fail" }

    func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        try runImmediately(item, context: context)
    }

    func runImmediately(_ item: WorkItem, context: ActionContext) throws -> ActionResult {
        do {
            return try inner.runImmediately(item, context: context)
        } catch let error as ActionError where hasMessage {
            let message = (try? request.parameters(item: item)["message"]?.description) ?? error.message
            throw ActionError(error.errorClass, message, rejectReason: error.rejectReason == nil ? nil : message)
        }
    }
}
