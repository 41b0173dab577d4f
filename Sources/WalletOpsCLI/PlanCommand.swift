import Foundation
import Jobs
import Playbook
import Runner

/// `walletops plan PLAYBOOK`: the step graph, item counts (inputs counted by streaming) and a sample
/// of items with secrets redacted. Nothing is executed.
struct PlanCommand: Command {
    static let sample = OptionSpec.option(
        "sample", valueName: "n", help: "Items shown per step.", type: .integer(min: 0, max: 100), default: "3")

    let registry: ActionRegistry
    init(registry: ActionRegistry = WalletOps.actions) { self.registry = registry }

    var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "plan", abstract: "Show what a run would do, without running anything.",
            options: [RunOptions.variable, Self.sample], arguments: [RunOptions.playbook])
    }

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        try await exiting {
            let path = arguments.argument(RunOptions.playbook)!
            let prepared = try PreparedRun(
                path: path, varArguments: arguments.values(RunOptions.variable), context: context, registry: registry,
                services: CoreCommandSupport.jobServices(arguments, context))
            let playbook = prepared.playbook
            let redactor = prepared.redactor
            let out = context.standardOutput
            out.writeLine("playbook '\(playbook.name)' (\(path), \(playbook.hash))")
            for (name, value) in prepared.vars.sorted(by: { $0.key < $1.key }) {
                out.writeLine("  var \(name) = \(redactor.redact(value.description))")
            }
            for name in playbook.secrets.keys.sorted() { out.writeLine("  secret \(name) = \(Redactor.mask)") }
            for (name, fingerprint) in prepared.fingerprints.sorted(by: { $0.key < $1.key }) {
                out.writeLine("  input \(name): \(fingerprint)")
            }
            out.writeLine("concurrency \(prepared.plan.concurrency)")
            out.writeLine("steps (in dependency order):")
            let sampleSize = arguments.integer(Self.sample) ?? 3
            for id in playbook.topologicalOrder {
                guard let step = playbook.step(id), let stepPlan = prepared.plan.steps.first(where: { $0.id == id })
                else { continue }
                var line = "  \(id): \(step.action)"
                if !step.needs.isEmpty { line += ", needs \(step.needs.joined(separator: ", "))" }
                switch step.forEach {
                case .input(let name): line += ", for each item of input '\(name)'"
                case .template(let template): line += ", for each of \(template.source)"
                case nil: break
                }
                let total = prepared.totals[id] ?? nil
                line += ", \(total.map(String.init) ?? "?") item\(total == 1 ? "" : "s")"
                if let when = step.when { line += ", when \(when.source)" }
                out.writeLine(line)
                let iterator = stepPlan.items.makeIterator()
                var shown = 0
                while shown < sampleSize, let item = try await iterator.next() {
                    shown += 1
                    let fields = JSONField.object(
                        item.fields.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
                    var sample = "    \(item.key) \(fields.text(redactor))"
                    let request = ActionRequest(
                        step: step, playbook: playbook, context: prepared.context, services: prepared.services)
                    if !step.with.isEmpty {
                        let with =
                            (try? request.parameters(item: step.forEach == nil ? nil : item))
                            .map { redactor.redact(TemplateValue.object($0).json) } ?? "(not renderable before the run)"
                        sample += " with \(with)"
                    }
                    out.writeLine(redactor.redact(sample))
                }
            }
            out.writeLine("nothing was executed")
            return ExitCode.success.rawValue
        }
    }
}
