import Foundation
import Jobs
import Playbook
import Runner

/// A playbook made ready to run: loaded and validated, vars resolved, secrets read, inputs
/// fingerprinted and counted, compiled into a ``RunPlan`` with an identity. Nothing is executed.
struct PreparedRun {
    let playbook: Playbook
    let playbookURL: URL
    let vars: [String: TemplateValue]
    /// The `--var` arguments as given (never secrets: `resolveVars` refuses those).
    let varArguments: [String]
    let redactor: Redactor
    let context: TemplateContext
    var fingerprints: [String: String]
    /// The file each input reads, as this process resolves it (inputs that read no file are absent).
    var inputPaths: [String: String] = [:]
    /// Items per step id (nil: unknown).
    let totals: [String: Int?]
    let plan: RunPlan
    let identity: RunIdentity
    /// The event log, made once the secrets (and so the redactor) are known.
    let events: RunEventLog
    /// The run command's `--core` (nil: the steps' `core` parameter, else `$WALLETOPS_CORE`, else embedded).
    let core: URL?
    /// What the command hands its job actions (home, core, working directory).
    let services: JobServices

    /// Prepares `path`. Problems are printed to standard error and end the command with exit 64.
    ///
    /// - Parameters:
    ///   - countInputs: stream every input once to count its items (progress totals, ETA, `plan`).
    init(
        path: String, varArguments: [String], context cli: Context, registry: ActionRegistry, isJSON: Bool = false,
        countInputs: Bool = true, concurrency: Int? = nil, core: URL? = nil, services: JobServices
    ) throws {
        playbookURL = cli.fileURL(path)
        self.core = core
        self.services = services
        self.varArguments = varArguments
        var loaded = try Self.load(path: path, url: playbookURL, registry: registry, context: cli)
        // `now` in templates: one time for every template of this command.
        let started = Int64(Date().timeIntervalSince1970)
        // --concurrency replaces the playbook-wide limit, which is also the default of every step.
        if let concurrency { loaded.concurrency = concurrency }
        do {
            vars = try loaded.resolveVars(varArguments)
        } catch {
            cli.standardError.writeLine("Error: " + error.problems.joined(separator: "\nError: "))
            throw CommandExit(.usage)
        }
        do {
            playbook = try loaded.resolvingSettingTemplates(
                in: TemplateContext(vars: vars, env: cli.environment, now: started))
        } catch {
            cli.standardError.writeLine("Error: \(error.message)")
            throw CommandExit(.usage)
        }
        let secrets: [String: SecretValue]
        do {
            secrets = try playbook.loadSecrets(environment: cli.environment, vars: vars)
        } catch {
            cli.standardError.writeLine("Error: " + error.problems.joined(separator: "\nError: "))
            throw CommandExit(.usage)
        }
        redactor = Redactor(secrets)
        let events = RunEventLog(output: cli.standardOutput, isJSON: isJSON, redactor: redactor)
        self.events = events
        context = TemplateContext(vars: vars, env: cli.environment, secrets: secrets, now: started)
        let publicContext = TemplateContext(vars: vars, env: cli.environment, now: started)

        var fingerprints: [String: String] = [:]
        var inputCounts: [String: Int] = [:]
        for (name, declaration) in playbook.inputs {
            let rendered = try? declaration.template.render(in: publicContext)
            if case .range = declaration.source {
                // A range reads no file: its count is the whole of what it is.
                fingerprints[name] = rendered.map { "range:\($0)" } ?? "unrenderable"
            } else {
                fingerprints[name] = rendered.map { InputFingerprint.of(path: cli.fileURL($0).path) } ?? "unrenderable"
                if let rendered { inputPaths[name] = cli.fileURL(rendered).path }
            }
            if countInputs {
                do {
                    // Checked like the run will read it (a bad row stops the command here), not built.
                    inputCounts[name] = try InputReader(
                        declaration, context: publicContext, folder: cli.currentDirectory
                    ).countRemaining()
                } catch {
                    cli.standardError.writeLine("Error: input '\(name)': \(redactor.redact(error.description))")
                    switch error.inputProblem {
                    case .missing: throw CommandExit(.noInput)
                    case .unreadable: throw CommandExit(.ioError)
                    case .invalidData, nil: throw CommandExit(.dataError)
                    }
                }
            }
        }
        self.fingerprints = fingerprints

        var totals: [String: Int?] = [:]
        let playbook = playbook
        let context = context
        do {
            let plan = try RunPlan(
                playbook: playbook,
                action: { step in
                    let inner = try registry.action(
                        for: ActionRequest(
                            step: step, playbook: playbook, context: context, core: core, services: services,
                            warn: { [output = cli.standardError] in output.writeLine("warning: " + $0) }))
                    let retry = RetryPolicy(playbook.effectiveSettings(for: step).retry)
                    if let chunked = inner as? any ChunkAction {
                        return InstrumentedChunkAction(
                            inner: chunked, step: step, context: context, retry: retry, events: events)
                    }
                    return InstrumentedAction.wrapping(
                        inner, step: step, context: context, retry: retry, events: events)
                },
                items: { step in
                    switch step.forEach {
                    case nil:
                        totals[step.id] = 1
                        return nil
                    case .input(let name):
                        guard let declaration = playbook.inputs[name] else {
                            throw CLIError.usage("step '\(step.id)': unknown input '\(name)'")
                        }
                        totals[step.id] = inputCounts[name]
                        return ItemSource.input(
                            declaration, context: publicContext, folder: cli.currentDirectory,
                            count: inputCounts[name])
                    case .template(let template) where template.references.contains { $0.root == "steps" }:
                        // A list an earlier step made: evaluated when this step starts, from its outputs.
                        totals.updateValue(nil, forKey: step.id)
                        let step = step
                        return ItemSource.values(afterSteps: { outputs in
                            var context = publicContext
                            context.steps = outputs.byStep.mapValues { $0.mapValues(TemplateValue.init(output:)) }
                            do {
                                return try step.forEachList(in: context) ?? []
                            } catch {
                                throw CLIError.usage("step '\(step.id)': for_each: \(error)")
                            }
                        })
                    case .template:
                        do {
                            let list = try step.forEachList(in: publicContext) ?? []
                            totals[step.id] = list.count
                            return ItemSource.values(list)
                        } catch {
                            throw CLIError.usage("step '\(step.id)': for_each: \(error)")
                        }
                    }
                })
            self.plan = plan
        } catch let error as CLIError {
            cli.standardError.writeLine("Error: \(redactor.redact(error.message))")
            throw CommandExit(error.exitCode)
        } catch let error as ActionSetupError {
            cli.standardError.writeLine("Error: \(redactor.redact(error.message))")
            // A step's bad parameter is a usage error; a bad file it names keeps its own code (65, 66, 74).
            throw CommandExit(CLIError(error).exitCode)
        }
        // A chunk action that reads its own input: its rows are the step's items, its files part of the
        // identity (`<step>.input`, `<step>.input2`, ...).
        for step in plan.steps {
            guard let chunked = step.action as? any ChunkAction, playbook.step(step.id)?.forEach == nil else {
                continue
            }
            if chunked.items != nil { totals[step.id] = step.items.count }
            for (index, path) in chunked.inputPaths.enumerated() {
                let name = "\(step.id).input\(index == 0 ? "" : String(index + 1))"
                fingerprints[name] = InputFingerprint.of(path: cli.fileURL(path).path)
                inputPaths[name] = cli.fileURL(path).path
            }
        }
        self.totals = totals
        identity = RunIdentity(playbook: playbook, inputFingerprints: fingerprints, vars: vars)
    }

    /// Loads and validates a playbook; diagnostics go to standard error (exit 64 when invalid).
    static func load(path: String, url: URL, registry: ActionRegistry, context: Context) throws -> Playbook {
        let options = Playbook.ValidationOptions(knownActions: registry.names)
        do {
            return try Playbook.load(
                contentsOf: URL(fileURLWithPath: path, relativeTo: context.currentDirectory), options: options)
        } catch {
            context.standardError.writeLine(error.description)
            let count = error.diagnostics.filter { $0.severity == .error }.count
            context.standardError.writeLine("\(count) error\(count == 1 ? "" : "s") in \(path)")
            throw CommandExit(.usage)
        }
    }
}

// MARK: - The instrumented actions

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
    func prepare() async { await inner.prepare() }

    func run(chunk: [WorkItem], context: ChunkContext) async throws -> [ItemOutcome] {
        // Without `when:` every item goes, as the engine handed it: no per-item context, no copy of the chunk.
        guard instrumented.step.when != nil else { return try await runAll(chunk, context: context) }
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
            let answers = try await runAll(sent.map { chunk[$0] }, context: context)
            guard answers.count == sent.count else { return answers }
            for (index, answer) in zip(sent, answers) { outcomes[index] = answer }
        }
        return outcomes.map { $0! }
    }

    /// The inner action's outcomes for `chunk`, each reject and failure reported with its secrets redacted.
    private func runAll(_ chunk: [WorkItem], context: ChunkContext) async throws -> [ItemOutcome] {
        var answers: [ItemOutcome]
        do {
            answers = try await inner.run(chunk: chunk, context: context)
        } catch {
            guard let first = chunk.first else { throw error }
            throw instrumented.instrumented(error, item: first, context: context.itemContext(first))
        }
        guard answers.count == chunk.count else { return answers }
        for (index, answer) in answers.enumerated() {
            switch answer {
            case .succeeded:
                continue
            case .rejected(let reason, let outputs):
                let item = chunk[index]
                let error = instrumented.report(
                    ActionError.rejected(reason), item: item, context: context.itemContext(item))
                answers[index] = .rejected(reason: error.rejectReason ?? reason, outputs: outputs)
            case .failed(let errorClass, let message):
                let item = chunk[index]
                let error = instrumented.report(
                    ActionError(errorClass, message), item: item, context: context.itemContext(item))
                answers[index] = .failed(errorClass, error.message)
            }
        }
        return answers
    }

    func probe(chunk: [WorkItem], context: ChunkContext) async throws -> [ProbeOutcome] {
        try await inner.probe(chunk: chunk, context: context)
    }
}
