import Playbook
import Runner

/// Wraps a step's action for the command line: evaluates the step's `when:` per item, redacts secret
/// values from error messages before the engine stores them, and reports failed and rejected items
/// to the event log.
struct InstrumentedAction: Action {
    let inner: any Action
    let step: Step
    let context: TemplateContext
    let retry: RetryPolicy
    let events: RunEventLog

    var name: String { inner.name }
    var isSideEffecting: Bool { inner.isSideEffecting }

    func run(_ item: WorkItem, context actionContext: ActionContext) async throws -> ActionResult {
        if step.when != nil {
            var itemContext = context
            if step.forEach != nil { itemContext.item = .object(item.fields.mapValues(TemplateValue.string)) }
            do {
                guard try step.shouldRun(in: itemContext) else { return ActionResult(outputs: ["skipped": "when"]) }
            } catch {
                throw report(ActionError.permanent("when: \(error.message)"), item: item, context: actionContext)
            }
        }
        do {
            return try await inner.run(item, context: actionContext)
        } catch let error as ActionError {
            throw report(error, item: item, context: actionContext)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw report(ActionError.permanent("\(error)"), item: item, context: actionContext)
        }
    }

    func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome {
        try await inner.probe(item, context: context)
    }

    /// The error with secrets redacted, after logging it.
    private func report(_ error: ActionError, item: WorkItem, context: ActionContext) -> ActionError {
        let redactor = events.redactor
        let message = redactor.redact(error.message)
        let redacted = ActionError(error.errorClass, message, rejectReason: error.rejectReason.map(redactor.redact))
        let kind: String
        if error.rejectReason != nil {
            kind = "item-rejected"
        } else if retry.retryOn.contains(error.errorClass) && context.attempt < retry.maxAttempts {
            kind = "item-retry"
        } else {
            kind = "item-failed"
        }
        events.emit(
            kind,
            [
                "step": .string(step.id), "key": .string(item.key), "attempt": .int(context.attempt),
                "class": .string(error.errorClass.rawValue), "message": .string(message),
            ])
        return redacted
    }
}
