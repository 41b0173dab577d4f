import Foundation
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
    let fingerprints: [String: String]
    /// Items per step id (nil: unknown).
    let totals: [String: Int?]
    let plan: RunPlan
    let identity: RunIdentity
    /// The event log, made once the secrets (and so the redactor) are known.
    let events: RunEventLog
    /// The run command's `--core` (nil: the steps' `core` parameter, else `$WALLETOPS_CORE`, else embedded).
    let core: URL?

    /// Prepares `path`. Problems are printed to standard error and end the command with exit 64.
    ///
    /// - Parameters:
    ///   - countInputs: stream every input once to count its items (progress totals, ETA, `plan`).
    init(
        path: String, varArguments: [String], context cli: Context, registry: ActionRegistry, isJSON: Bool = false,
        countInputs: Bool = true, concurrency: Int? = nil, core: URL? = nil
    ) throws {
        playbookURL = cli.fileURL(path)
        self.core = core
        self.varArguments = varArguments
        var loaded = try Self.load(path: path, url: playbookURL, registry: registry, context: cli)
        // --concurrency replaces the playbook-wide limit, which is also the default of every step.
        if let concurrency { loaded.concurrency = concurrency }
        playbook = loaded
        do {
            vars = try playbook.resolveVars(varArguments)
        } catch {
            cli.standardError.writeLine("Error: " + error.problems.joined(separator: "\nError: "))
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
        context = TemplateContext(vars: vars, env: cli.environment, secrets: secrets)
        let publicContext = TemplateContext(vars: vars, env: cli.environment)

        var fingerprints: [String: String] = [:]
        var inputCounts: [String: Int] = [:]
        for (name, declaration) in playbook.inputs {
            let template: Template
            switch declaration.source {
            case .csv(let p, _, _, _), .jsonl(let p), .directory(let p, _): template = p
            }
            let rendered = (try? template.render(in: publicContext)).map { cli.fileURL($0).path }
            fingerprints[name] = rendered.map(InputFingerprint.of(path:)) ?? "unrenderable"
            if countInputs {
                do {
                    // Checked like the run will read it (a bad row stops the command here), not built.
                    inputCounts[name] = try InputReader(declaration, context: publicContext).countRemaining()
                } catch {
                    cli.standardError.writeLine("Error: input '\(name)': \(redactor.redact(error.description))")
                    throw CommandExit(.usage)
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
                        for: ActionRequest(step: step, playbook: playbook, context: context, core: core))
                    let retry = RetryPolicy(playbook.effectiveSettings(for: step).retry)
                    return InstrumentedAction(
                        inner: inner, step: step, context: context, retry: retry,
                        events: events)
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
                        return ItemSource.input(declaration, context: publicContext, count: inputCounts[name])
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
            throw CommandExit(.usage)
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
