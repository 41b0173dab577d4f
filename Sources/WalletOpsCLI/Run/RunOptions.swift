import Foundation
import Playbook
import Runner

/// Options shared by the commands that run playbooks (`run`, `retry`, `due`).
enum RunOptions {
    static let playbook = ArgumentSpec("playbook", help: "The playbook file (YAML).")
    static let variable = OptionSpec.option(
        "var", valueName: "name=value", help: "Set a playbook var.", type: .keyValue, repeating: true)
    static let logFormat = OptionSpec.option(
        "log-format", valueName: "format",
        help: "text: live progress and a summary; json: JSON-lines events on standard output.",
        type: .choice(["text", "json"]), default: "text")
    static let grace = OptionSpec.option(
        "grace", valueName: "duration", help: "How long in-flight items may finish after SIGINT/SIGTERM.",
        default: "10s")
    static let progressInterval = OptionSpec.option(
        "progress-interval", valueName: "duration",
        help: "Off a terminal, print a progress line this often.", default: "5s")

    static let lease = OptionSpec.option(
        "lease", valueName: "duration",
        help: "With a PostgreSQL store: how long a claimed chunk stays this process's without a heartbeat.",
        default: "30s")

    /// The options every running command takes. `--core` is handed to the job actions (``ActionRequest/core``)
    /// and comes before a step's `core` parameter (`--var core=URL`) and `$WALLETOPS_CORE`.
    static let running: [OptionSpec] = [
        CommonOptions.home, CommonOptions.store, CommonOptions.core, logFormat, grace, progressInterval, lease,
    ]

    static func duration(_ option: OptionSpec, in arguments: ParsedArguments) throws -> Duration {
        let text = arguments.value(option) ?? ""
        guard let duration = DurationText.parse(text) else {
            throw CLIError.usage(
                "invalid value '\(text)' for '--\(option.long)': expected a duration such as 500ms, 10s, 1m")
        }
        return duration
    }

    /// Whether standard output is a terminal (the live display) or not (summary lines, for cron).
    static func displayMode(_ arguments: ParsedArguments, context: Context) -> ProgressDisplay.Mode {
        if arguments.value(logFormat) == "json" { return .json }
        if let output = context.standardOutput as? FileDescriptorOutput, isatty(output.descriptor) == 1 { return .live }
        return .lines
    }

    /// `argument` quoted for a POSIX shell when it needs it.
    static func shellQuoted(_ argument: String) -> String {
        let plain = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,@%+".contains($0) }
        if plain && !argument.isEmpty { return argument }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `walletops run <playbook> --var ... [--home H] [--store URL] [--core URL]`: the command that resumes
    /// a run (a store URL's password shown as `***`).
    static func resumeCommand(
        playbook: String, vars: [String], home: String?, store: String? = nil, core: URL? = nil
    ) -> String {
        var words = ["walletops", "run", playbook]
        for assignment in vars { words += ["--var", assignment] }
        if let home { words += ["--home", home] }
        if let store { words += ["--store", RunStore.displayLocation(store)] }
        if let core { words += ["--core", core.absoluteString] }
        return words.map(shellQuoted).joined(separator: " ")
    }

    /// The command line that ran this process, as the command that resumes it: without `drop`, and with
    /// a store URL's password shown as `***` (the resume line is printed and stored with the run).
    static func resumeCommand(arguments: [String], dropping drop: Set<String>) -> String {
        let words = arguments.filter { !drop.contains($0) }.map { word in
            if word.hasPrefix("--store=") { return "--store=" + RunStore.displayLocation(String(word.dropFirst(8))) }
            return RunStore.displayLocation(word)
        }
        return (["walletops"] + words).map(shellQuoted).joined(separator: " ")
    }

    /// The execution of `prepared` with the options of `arguments`.
    static func execution(
        _ prepared: PreparedRun, mode: RunStore.OpenMode, arguments: ParsedArguments, context: Context,
        resumeCommand: String
    ) throws -> RunExecution {
        RunExecution(
            prepared: prepared, home: RunHome(arguments, context: context), mode: mode, context: context,
            events: prepared.events, display: displayMode(arguments, context: context),
            progressInterval: try duration(progressInterval, in: arguments),
            gracePeriod: try duration(grace, in: arguments), lease: try duration(lease, in: arguments),
            resumeCommand: resumeCommand)
    }
}
