import Foundation
import Jobs
import Playbook

/// `walletops validate PLAYBOOK`: prints every problem at once; exit 64 when invalid, 0 when valid.
struct ValidateCommand: Command {
    let registry: ActionRegistry
    init(registry: ActionRegistry = WalletOps.actions) { self.registry = registry }

    var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "validate", abstract: "Check a playbook and print every problem at once.",
            discussion: """
                Problems are printed to standard error as file:line:col: error: message, with the source
                line and a caret under the column. Exit 0 when valid, 64 when not.
                """,
            arguments: [RunOptions.playbook])
    }

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let path = arguments.argument(RunOptions.playbook)!
        let text: String
        do {
            text = try Playbook.decodeSource(Playbook.readSource(context.fileURL(path), file: path), file: path)
        } catch {
            context.standardError.writeLine(error.description)
            return ExitCode.usage.rawValue
        }
        let result = Playbook.validate(text, file: path, options: .init(knownActions: registry.names))
        if !result.diagnostics.isEmpty { context.standardError.writeLine(result.rendered) }
        let errors = result.diagnostics.filter { $0.severity == .error }.count
        guard let playbook = result.playbook else {
            context.standardError.writeLine("\(errors) error\(errors == 1 ? "" : "s") in \(path)")
            return ExitCode.usage.rawValue
        }
        context.standardOutput.writeLine(
            "\(path): valid playbook '\(playbook.name)', \(playbook.steps.count) step\(playbook.steps.count == 1 ? "" : "s")"
        )
        return ExitCode.success.rawValue
    }
}
