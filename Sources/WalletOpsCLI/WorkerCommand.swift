import Foundation
import Jobs
import Playbook
import Runner
import Synchronization

/// `walletops worker --store URL`: joins the runs of a shared (PostgreSQL) run store that have chunks to
/// do, on any host, beside the `walletops run` that started each (docs/engine.md "Running on several
/// machines").
struct WorkerCommand: Command {
    static let maxRuns = OptionSpec.option(
        "max-runs", valueName: "n", help: "Exit after working on this many runs.", type: .integer(min: 1))
    static let concurrency = OptionSpec.option(
        "concurrency", valueName: "n", help: "Chunks in flight in this worker (overrides the playbook).",
        type: .integer(min: 1, max: 4096))
    static let idleExit = OptionSpec.option(
        "idle-exit", valueName: "duration",
        help: "Exit when no run has had chunks to do for this long (default: wait for work forever).")
    static let poll = OptionSpec.option(
        "poll", valueName: "duration", help: "How often to look for work when there is none.", default: "1s")

    let registry: ActionRegistry
    init(registry: ActionRegistry = WalletOps.actions) { self.registry = registry }

    var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "worker", abstract: "Work on the chunks of runs shared through a PostgreSQL run store.",
            discussion: """
                Each run is made again from what its walletops run recorded: the playbook file, the vars
                and the folder they are relative to, which this host must see at the same paths (a shared
                mount). Before claiming anything the worker checks that the playbook and every input are
                the ones the run was started with; a run that differs is refused with an error naming the
                input and its file, and never claimed. Secrets come from this worker's environment, as
                for run. Only chunk steps are shared: the run's own process runs the other steps, waits
                for the chunks, and writes the outputs.
                Exit codes: 0 stopped by --max-runs or --idle-exit, 1 a run's items failed here or this
                host's session expired or was refused (sign in, then start the worker again), 65 a run was
                refused (its inputs differ here), 75 interrupted (SIGINT/SIGTERM) or the core unreachable.
                """,
            options: [
                Self.maxRuns, Self.concurrency, Self.idleExit, Self.poll, CommonOptions.home, CommonOptions.store,
                CommonOptions.core, RunOptions.grace, RunOptions.lease,
            ])
    }

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        try await exiting {
            let home = RunHome(arguments, context: context)
            guard RunStore.isPostgresURL(home.storeLocation) else {
                throw CLIError.usage(
                    "walletops worker needs a shared run store: --store postgresql://... or $\(CommonOptions.storeEnvironmentVariable)"
                )
            }
            let idleExit = try arguments.value(Self.idleExit).map { _ in
                try RunOptions.duration(Self.idleExit, in: arguments)
            }
            let poll = try RunOptions.duration(Self.poll, in: arguments)
            let grace = try RunOptions.duration(RunOptions.grace, in: arguments)
            let lease = try RunOptions.duration(RunOptions.lease, in: arguments)
            let maxRuns = arguments.integer(Self.maxRuns)
            let store = try home.openStore()
            let owner = store.leaseOwner
            let worker = Worker()
            let trap = SignalTrap(
                onFirst: { number in
                    context.standardError.writeLine(
                        "\nreceived \(number == SIGINT ? "SIGINT" : "SIGTERM"): stopping; the chunks in flight have "
                            + "\(DurationText.format(grace)) to finish (send it again to stop at once)")
                    worker.stop(now: false)
                },
                onRepeat: { _ in worker.stop(now: true) })
            defer { trap.cancel() }
            context.standardError.writeLine(
                "worker \(owner) on \(home.storeDisplay): waiting for runs with chunks to do")
            var refused: Set<Int64> = []
            var worked = 0
            var failedHere = false
            var idleSince = ContinuousClock.now
            while !worker.isStopping {
                let open = try await store.openChunkSteps().map(\.runID).filter { !refused.contains($0) }
                guard let runID = open.first else {
                    if let idleExit, ContinuousClock.now - idleSince >= idleExit { break }
                    try? await Task.sleep(for: poll)
                    continue
                }
                let engine: Engine
                let name: String
                do {
                    (engine, name) = try await join(
                        runID: runID, store: store, leasing: Leasing(owner: owner, lease: lease), arguments: arguments,
                        context: context, grace: grace)
                } catch let error as WorkerRefusal {
                    context.standardError.writeLine("Error: \(error.message); not claiming anything of run \(runID)")
                    refused.insert(runID)
                    continue
                }
                guard worker.begin(engine) else { break }
                let summary = try await engine.join()
                worker.end()
                worked += 1
                if summary.failed > 0 { failedHere = true }
                context.standardOutput.writeLine(
                    "run \(runID) of '\(name)': \(summary.succeeded + summary.failed + summary.rejected) items here "
                        + "(\(summary.succeeded) succeeded, \(summary.failed) failed, \(summary.rejected) rejected) in "
                        + DurationText.format(summary.elapsed)
                        + (summary.status == .aborted ? "; stopped: \(summary.reason ?? "")" : ""))
                // A refused sign-in or an unreachable core stops this worker rather than the next join
                // meeting it again: sign in on this host (exit 1) or let the supervisor retry later (75).
                if summary.status == .interrupted, let cause = summary.stopCause, !worker.isStopping {
                    let reason = summary.reason ?? "the run's requests were refused"
                    switch cause {
                    case .unauthorized:
                        context.standardError.writeLine(
                            "Error: \(reason); worker \(owner) stopped, its chunks in flight given back. Sign in on "
                                + "this host (walletops login --home \(home.url.path)), then start it again")
                        return ExitCode.failure.rawValue
                    case .unavailable:
                        context.standardError.writeLine(
                            "Error: \(reason); worker \(owner) stopped, its chunks in flight given back (retry later)")
                        return ExitCode.temporaryFailure.rawValue
                    }
                }
                if let maxRuns, worked >= maxRuns { break }
                idleSince = ContinuousClock.now
            }
            if worker.isStopping { return ExitCode.temporaryFailure.rawValue }
            if !refused.isEmpty { return ExitCode.dataError.rawValue }
            return failedHere ? ExitCode.failure.rawValue : ExitCode.success.rawValue
        }
    }

    /// Why a run is not joined: its playbook or an input is not what the run was started with, as this
    /// host sees it, or it cannot be made here.
    struct WorkerRefusal: Error {
        var message: String
    }

    /// Makes run `runID`'s plan again from its recorded playbook, vars and folder, checks its identity,
    /// and returns an engine that joins it.
    private func join(
        runID: Int64, store: RunStore, leasing: Leasing, arguments: ParsedArguments, context: Context,
        grace: Duration
    ) async throws -> (Engine, String) {
        let attributes = try await store.attributes(runID: runID)
        guard let path = attributes["playbook"], let folder = attributes["cwd"] else {
            throw WorkerRefusal(
                message: "run \(runID) does not record its playbook and folder (started by an older walletops)")
        }
        let varArguments = attributes.keys.filter { $0.hasPrefix("var.") }
            .sorted { Int($0.dropFirst(4)) ?? 0 < Int($1.dropFirst(4)) ?? 0 }.compactMap { attributes[$0] }
        // The run's relative paths are the run's folder's: the context carries it to every file the run
        // opens (inputs, actions' files, outputs); the process's working directory stays where it was.
        var here = context
        here.currentDirectory = URL(fileURLWithPath: folder, isDirectory: true)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw WorkerRefusal(message: "run \(runID): its folder \(folder) is not on this host")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw WorkerRefusal(message: "run \(runID): its playbook \(path) is not on this host")
        }
        let prepared: PreparedRun
        do {
            prepared = try PreparedRun(
                path: path, varArguments: varArguments, context: here, registry: registry, countInputs: false,
                concurrency: arguments.integer(Self.concurrency),
                core: arguments.coreURL ?? attributes["core"].flatMap(URL.init(string:)),
                services: CoreCommandSupport.jobServices(arguments, here))
        } catch {
            throw WorkerRefusal(message: "run \(runID): its playbook \(path) cannot be made ready here")
        }
        let handle: RunHandle
        do {
            handle = try await store.join(
                runID: runID, identity: prepared.identity, retryFailed: attributes["retry_failed"] == "true")
        } catch let error as RunStoreError {
            if case .identityChanged(let differences) = error.code {
                let named = differences.map { difference -> String in
                    // "input 'keys' changed": name the file this host sees.
                    for (input, file) in prepared.inputPaths where difference == "input '\(input)' changed" {
                        return "input '\(input)' (\(file)) is not the file run \(runID) was started with"
                    }
                    return difference
                }
                throw WorkerRefusal(
                    message: "run \(runID) of '\(prepared.playbook.name)': " + named.joined(separator: "; "))
            }
            throw WorkerRefusal(message: error.message)
        }
        let options = Engine.Options(
            gracePeriod: grace, leasing: leasing, immediateActions: here.tuning.immediateActions)
        return (try Engine(plan: prepared.plan, checkpoint: handle, options: options), prepared.playbook.name)
    }
}

/// The engine a worker is running, for the signal handlers: a first signal drains it and starts no other
/// run; a second stops it at once.
private final class Worker: Sendable {
    private struct State {
        var engine: Engine?
        var stopping = false
    }
    private let state = Mutex(State())

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Records `engine` as the running one; false when a stop came first.
    func begin(_ engine: Engine) -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            state.engine = engine
            return true
        }
    }

    func end() { state.withLock { $0.engine = nil } }

    func stop(now: Bool) {
        let engine = state.withLock { state in
            state.stopping = true
            return state.engine
        }
        engine?.stop()
        if now { engine?.stop() }
    }
}
