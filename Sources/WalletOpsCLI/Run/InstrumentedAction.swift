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

    /// The wrapper of `inner`: an ``InstrumentedImmediateAction`` when `inner` is an `ImmediateAction`, so
    /// the engine keeps calling it without an async call per item.
    static func wrapping(
        _ inner: any Action, step: Step, context: TemplateContext, retry: RetryPolicy, events: RunEventLog
    ) -> any Action {
        let wrapper = InstrumentedAction(inner: inner, step: step, context: context, retry: retry, events: events)
        if let immediate = inner as? any ImmediateAction {
            return InstrumentedImmediateAction(inner: immediate, instrumented: wrapper)
        }
        return wrapper
    }

    var name: String { inner.name }
    var isSideEffecting: Bool { inner.isSideEffecting }

    func run(_ item: WorkItem, context actionContext: ActionContext) async throws -> ActionResult {
        if let skipped = try skipIfNotWhen(item, context: actionContext) { return skipped }
        do {
            return try await inner.run(item, context: actionContext)
        } catch {
            throw instrumented(error, item: item, context: actionContext)
        }
    }

    /// The result of an item that the step's `when:` skips, nil when it runs.
    func skipIfNotWhen(_ item: WorkItem, context actionContext: ActionContext) throws -> ActionResult? {
        guard step.when != nil else { return nil }
        var itemContext = context
        if step.forEach != nil { itemContext.item = .object(item.fields.mapValues(TemplateValue.string)) }
        do {
            return try step.shouldRun(in: itemContext) ? nil : ActionResult(outputs: ["skipped": "when"])
        } catch {
            throw report(ActionError.permanent("when: \(error.message)"), item: item, context: actionContext)
        }
    }

    /// The error the engine gets for a failed attempt: secrets redacted, failures logged.
    func instrumented(_ error: any Error, item: WorkItem, context actionContext: ActionContext) -> any Error {
        if error is CancellationError { return CancellationError() }
        // An error that knows the engine's view of it (a job's sign-in refusal stops the run) keeps it.
        if let error = ActionError.of(error) { return report(error, item: item, context: actionContext) }
        return report(ActionError.permanent("\(error)"), item: item, context: actionContext)
    }

    func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome {
        try await inner.probe(item, context: context)
    }

    /// The error with secrets redacted, after logging it.
    func report(_ error: ActionError, item: WorkItem, context: ActionContext) -> ActionError {
        let redactor = events.redactor
        let message = redactor.redact(error.message)
        var redacted = error
        redacted.message = message
        redacted.rejectReason = error.rejectReason.map(redactor.redact)
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

/// ``InstrumentedAction`` for an action that never suspends: `when:` is evaluated synchronously anyway, so
/// the wrapper never suspends either and keeps the engine's immediate path.
struct InstrumentedImmediateAction: ImmediateAction {
    let inner: any ImmediateAction
    let instrumented: InstrumentedAction

    var name: String { inner.name }
    var isSideEffecting: Bool { inner.isSideEffecting }

    func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        try await instrumented.run(item, context: context)
    }

    func runImmediately(_ item: WorkItem, context actionContext: ActionContext) throws -> ActionResult {
        if let skipped = try instrumented.skipIfNotWhen(item, context: actionContext) { return skipped }
        do {
            return try inner.runImmediately(item, context: actionContext)
        } catch {
            throw instrumented.instrumented(error, item: item, context: actionContext)
        }
    }

    func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome {
        try await instrumented.probe(item, context: context)
    }
}

/// ``InstrumentedAction`` for a chunk action: `when:` per item (items it skips never reach the action),
/// secrets redacted from every outcome's message, and failed, retried and rejected items reported.
struct InstrumentedChunkAction: ChunkAction {
    let inner: any ChunkAction
    let instrumented: InstrumentedAction

    init(inner: any ChunkAction, step: Step, context: TemplateContext, retry: RetryPolicy, events: RunEventLog) {
        self.inner = inner
        instrumented = InstrumentedAction(inner: inner, step: step, context: context, retry: retry, events: events)
    }

    var name: String { inner.name }
    var isSideEffecting: Bool { inner.isSideEffecting }
    var isIdempotent: Bool { inner.isIdempotent }
    var defaultBatch: Int { inner.defaultBatch }
    var defaultConcurrency: Int? { inner.defaultConcurrency }
    var sinks: [Runner.OutputSink] { inner.sinks }
    var items: ItemSource? { inner.items }
    var inputPaths: [String] { inner.inputPaths }

    func run(chunk: [WorkItem], context: ChunkContext) async throws -> [ItemOutcome] {
        var outcomes = [ItemOutcome?](repeating: nil, count: chunk.count)
        var sent: [Int] = []
        for (index, item) in chunk.enumerated() {
            let itemContext = context.itemContext(item)
            if let skipped = try instrumented.skipIfNotWhen(item, context: itemContext) {
                outcomes[index] = .succeeded(skipped)
            } else {
                sent.append(index)
            }
        }
        if !sent.isEmpty {
            let answers: [ItemOutcome]
            do {
                answers = try await inner.run(chunk: sent.map { chunk[$0] }, context: context)
            } catch {
                throw instrumented.instrumented(
                    error, item: chunk[sent[0]], context: context.itemContext(chunk[sent[0]]))
            }
            guard answers.count == sent.count else { return answers }
            for (index, answer) in zip(sent, answers) {
                let item = chunk[index]
                let itemContext = context.itemContext(item)
                switch answer {
                case .succeeded:
                    outcomes[index] = answer
                case .rejected(let reason, let outputs):
                    let error = instrumented.report(ActionError.rejected(reason), item: item, context: itemContext)
                    outcomes[index] = .rejected(reason: error.rejectReason ?? reason, outputs: outputs)
                case .failed(let errorClass, let message):
                    let error = instrumented.report(ActionError(errorClass, message), item: item, context: itemContext)
                    outcomes[index] = .failed(errorClass, error.message)
                }
            }
        }
        return outcomes.map { $0! }
    }

    func probe(chunk: [WorkItem], context: ChunkContext) async throws -> [ProbeOutcome] {
        try await inner.probe(chunk: chunk, context: context)
    }
}
