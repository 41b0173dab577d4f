import Foundation
import Playbook
import Runner

/// `walletops prune --older-than DURATION`: deletes finished runs with their items, events and reports.
struct PruneCommand: Command {
    static let olderThan = OptionSpec.option(
        "older-than", valueName: "duration", help: "Delete finished runs that ended longer ago than this (e.g. 30d).",
        required: true)

    let configuration = CommandConfiguration(
        name: "prune", abstract: "Delete finished runs older than a duration.",
        discussion: """
            Completed and abandoned runs that ended before now minus the duration are deleted with their
            items, steps, events and report files. Unfinished runs (running, interrupted, aborted) are kept:
            they can still be resumed.
            """,
        options: [CommonOptions.home, CommonOptions.store, Self.olderThan])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let text = arguments.value(Self.olderThan)!
        guard let age = DurationText.parse(text) else {
            throw CLIError.usage("invalid value '\(text)' for '--older-than': expected a duration such as 12h, 30d")
        }
        let home = RunHome(arguments, context: context)
        guard home.storeExists else {
            context.standardOutput.writeLine("pruned 0 runs (no run store at \(home.storeDisplay))")
            return ExitCode.success.rawValue
        }
        let ids = try await home.openStore().pruneRuns(endedBefore: Date().timeIntervalSince1970 - age.secondsValue)
        for id in ids {
            for suffix in ["json", "md"] {
                try? FileManager.default.removeItem(at: home.reportsURL.appendingPathComponent("\(id).\(suffix)"))
            }
        }
        context.standardOutput.writeLine(
            "pruned \(ids.count) run\(ids.count == 1 ? "" : "s")"
                + (ids.isEmpty ? "" : ": " + ids.sorted().map(String.init).joined(separator: ", ")))
        return ExitCode.success.rawValue
    }
}
