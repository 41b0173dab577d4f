import Foundation
import Playbook
import PostgresKit
import Synchronization

/// How an engine shares its chunk steps with other processes through the run store (docs/engine.md
/// "Running on several machines"): each chunk of a step is leased, worked, and completed with its items'
/// outcomes and output rows in one fenced transaction.
public struct Leasing: Sendable {
    /// Who this process is (`host:pid`), kept with its leases.
    public var owner: String
    /// How long a claim or a heartbeat holds a chunk (database time).
    public var lease: Duration
    /// How often a held chunk's lease is extended while it is worked.
    public var heartbeat: Duration
    /// How often a process with nothing left to claim looks again (for lapsed leases, and for the end).
    public var poll: Duration

    /// A lease of 30 s renewed every 10 s: a holder that stops answering loses its chunk within 30 s. The
    /// run's own process looks every 100 ms whether the chunks others hold are done: the step's end
    /// waits at most that long on the last of them.
    public init(
        owner: String, lease: Duration = .seconds(30), heartbeat: Duration? = nil, poll: Duration = .milliseconds(100)
    ) {
        self.owner = owner
        self.lease = lease
        self.heartbeat = heartbeat ?? lease / 3
        self.poll = poll
    }
}

/// The outcomes and output rows of one leased chunk, collected as its items finish and written with
/// the chunk's completion.
final class LeasedOutcomes: Sendable {
    struct Outcome {
        var update: RunHandle.Update
        var sinkRows: [[UInt8]]?
    }
    private let outcomes = Mutex<[Outcome]>([])

    func add(_ update: RunHandle.Update, sinkRows: [[UInt8]]?) {
        outcomes.withLock { $0.append(Outcome(update: update, sinkRows: sinkRows)) }
    }

    /// The items' rows and each sink's rows, in input order.
    func rows(sinks: Int) -> (updates: [ItemOutcomeRow], outputs: [Int: String]) {
        let all = outcomes.withLock { $0 }.sorted { $0.update.index < $1.update.index }
        var outputs: [Int: [UInt8]] = [:]
        let updates = all.map { outcome -> ItemOutcomeRow in
            if let rows = outcome.sinkRows {
                for (sink, bytes) in rows.enumerated() where !bytes.isEmpty { outputs[sink, default: []] += bytes }
            }
            let update = outcome.update
            var resultJSON = update.resultJSON
            if resultJSON == nil, !update.coveredOutputs.isEmpty {
                resultJSON = JSONText.object(update.coveredOutputs)
            }
            return ItemOutcomeRow(
                key: update.key, index: update.index, state: update.state, attempts: update.attempts,
                errorClass: update.errorClass, message: update.message, resultJSON: resultJSON)
        }
        precondition(outputs.count <= sinks, "more sinks' rows than the step has sinks")
        return (updates, outputs.mapValues { String(decoding: $0, as: UTF8.self) })
    }
}

extension Engine {
    /// A chunk step worked through leases: this process claims chunks until none is left to claim; as
    /// the run's own process (`coordinating`) it then waits for the chunks other processes hold (taking
    /// over any whose lease lapses) and writes the step's output files from the chunks' rows.
    func runLeasedChunks(
        _ runtime: StepRuntime, action: any ChunkAction, leasing: Leasing, coordinating: Bool
    ) async {
        guard let checkpoint else { return }
        let store = checkpoint.store
        let step = runtime.step
        do {
            try await againOnLostConnection {
                try await store.prepareChunks(
                    runID: checkpoint.runID, step: step.id, chunkSize: step.batch, total: step.items.count)
            }
        } catch {
            abort("step '\(step.id)': cannot share its chunks: \(error)")
            return
        }
        if coordinating && checkpoint.retryFailed {
            do {
                _ = try await againOnLostConnection {
                    try await store.reopenFailedChunks(runID: checkpoint.runID, step: step.id)
                }
            } catch {
                abort("step '\(step.id)': cannot reopen its failed chunks: \(error)")
                return
            }
        }
        let workers = min(step.concurrency, plan.concurrency)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await action.prepare() }
            for worker in 0..<workers {
                // One task of the run's own process waits for the chunks others hold (and takes over lapsed
                // ones); the rest end when nothing is left to claim.
                group.addTask {
                    await self.claimAndWork(runtime, action, leasing: leasing, waitForAll: coordinating && worker == 0)
                }
            }
        }
        guard coordinating, isRunning else { return }
        do {
            let (done, chunks) = try await store.chunkProgress(runID: checkpoint.runID, step: step.id)
            guard let chunks, done >= chunks else { return }
            let counts = try await store.itemCounts(runID: checkpoint.runID, step: step.id)
            runtime.progress.withLock { progress in
                progress.succeeded = counts[.succeeded] ?? 0
                progress.failed = counts[.failed] ?? 0
                progress.rejected = counts[.rejected] ?? 0
                progress.total = (counts.values.reduce(0, +))
            }
            try await assembleOutputs(step, store: store, runID: checkpoint.runID)
            runtime.tally.withLock { $0 = (0, 0, true) }
        } catch {
            abort("step '\(step.id)': \(error)")
        }
    }

    /// Claims chunks and works them until none is left to claim (and, with `waitForAll`, until every
    /// chunk of the step is done, whoever did it).
    private func claimAndWork(
        _ runtime: StepRuntime, _ action: any ChunkAction, leasing: Leasing, waitForAll: Bool
    ) async {
        guard let checkpoint else { return }
        let store = checkpoint.store
        let step = runtime.step
        let reader = LeaseReader(step: step, outputs: runtime.outputs)
        while isRunning {
            let lease: ChunkLease?
            do {
                lease = try await againOnLostConnection {
                    try await store.claimChunk(
                        runID: checkpoint.runID, step: step.id, owner: leasing.owner, lease: leasing.lease)
                }
            } catch {
                abort("step '\(step.id)': cannot claim a chunk: \(error)")
                return
            }
            if let lease {
                await work(lease, runtime, action, reader: reader, leasing: leasing)
                continue
            }
            guard waitForAll else { return }
            do {
                let (done, chunks) = try await againOnLostConnection {
                    try await store.chunkProgress(runID: checkpoint.runID, step: step.id)
                }
                if let chunks, done >= chunks { return }
                try await realClock.sleep(until: realClock.now() + leasing.poll)
            } catch {
                if !isRunning || error is CancellationError { return }
                abort("step '\(step.id)': cannot read its chunks: \(error)")
                return
            }
        }
    }

    /// Works one leased chunk: reads its items, commits intents (side-effecting steps), runs them with the
    /// lease kept alive, and completes it with every item's outcome and the output rows. A lease lost on
    /// the way changes nothing (the next holder probes what was in flight); a stop gives it back.
    private func work(
        _ lease: ChunkLease, _ runtime: StepRuntime, _ action: any ChunkAction, reader: LeaseReader,
        leasing: Leasing
    ) async {
        guard let checkpoint else { return }
        let store = checkpoint.store
        let step = runtime.step
        let first = lease.positions.lowerBound
        let items: [WorkItem]
        do {
            items = try await reader.read(lease.positions)
            if items.count < lease.chunkSize {
                try await againOnLostConnection {
                    try await store.setChunkTotal(runID: lease.runID, step: step.id, total: first + items.count)
                }
            }
            if !totalKnown(runtime), items.count < lease.chunkSize {
                runtime.progress.withLock { if $0.total == nil { $0.total = first + items.count } }
            }
        } catch {
            try? await againOnLostConnection { try await store.release(lease) }
            abort(
                "step '\(step.id)': cannot read its items: \(error)",
                inputProblem: (error as? any InputProblemReporting)?.inputProblem)
            return
        }
        if items.isEmpty {
            await complete(lease, LeasedOutcomes(), runtime)
            return
        }
        var prepared: [PreparedItem] = []
        let collected = LeasedOutcomes()
        do {
            let states = try await againOnLostConnection {
                try await checkpoint.lookup(step: step.id, positions: first..<(first + items.count))
            }
            for (offset, item) in items.enumerated() {
                let index = first + offset
                guard let found = states[item.key] else {
                    prepared.append(
                        PreparedItem(item: item, index: index, hadRow: false, attempts: 0, needsProbe: false))
                    continue
                }
                switch found.state {
                case .failed where checkpoint.retryFailed:
                    // A retry runs failed items again; one that failed in doubt is asked first.
                    prepared.append(
                        PreparedItem(
                            item: item, index: index, hadRow: true, attempts: found.attempts,
                            needsProbe: runtime.sideEffecting && found.errorClass == ErrorClass.inDoubt.rawValue))
                case .succeeded, .rejected, .failed:
                    // Finished already (recorded by an earlier invocation): kept as it is, rows and all.
                    let outputs = JSONText.parseObject(found.resultJSON ?? "{}")
                    collected.add(
                        RunHandle.Update(
                            step: step.id, key: item.key, index: index, state: found.state, attempts: found.attempts,
                            errorClass: found.errorClass, message: found.message, resultJSON: found.resultJSON,
                            idempotencyKey: nil),
                        sinkRows: step.sinks.isEmpty
                            ? nil
                            : runtime.sinkRows(
                                item, state: found.state, outputs: outputs, message: found.message,
                                errorClass: found.errorClass))
                case .started, .pending, .skipped:
                    // `started`: an earlier holder sent it, or was about to: asked before it is sent again.
                    prepared.append(
                        PreparedItem(
                            item: item, index: index, hadRow: true, attempts: found.attempts,
                            needsProbe: runtime.sideEffecting && found.state == .started))
                }
            }
            if runtime.sideEffecting {
                let intents = prepared.map {
                    ItemOutcomeRow(key: $0.item.key, index: $0.index, state: .started, attempts: $0.attempts)
                }
                try await againOnLostConnection {
                    try await store.fenced(lease, extendingBy: leasing.lease) { write in try write.write(intents) }
                }
            }
        } catch let error as RunStoreError where error.isLeaseLost {
            return
        } catch {
            abort("step '\(step.id)': cannot write intents: \(error)")
            return
        }
        enum Ending: Sendable {
            case processed(finished: Bool)
            case leaseLost
            case heartbeatStopped
        }
        let toRun = prepared
        let ending = await withTaskGroup(of: Ending.self) { group in
            group.addTask {
                .processed(finished: await self.processChunk(toRun, runtime, action, collecting: collected))
            }
            group.addTask {
                // The heartbeat: the lease is extended until the chunk is done; a refused renewal means
                // another worker has it now, and this one stops working on it.
                while !Task.isCancelled {
                    do {
                        try await self.realClock.sleep(until: self.realClock.now() + leasing.heartbeat)
                        let held = try await self.againOnLostConnection {
                            try await store.renew(lease, for: leasing.lease)
                        }
                        if !held { return .leaseLost }
                    } catch {
                        return .heartbeatStopped
                    }
                }
                return .heartbeatStopped
            }
            defer { group.cancelAll() }
            while let ending = await group.next() {
                if case .heartbeatStopped = ending { continue }
                return ending
            }
            return .heartbeatStopped
        }
        switch ending {
        case .processed(finished: true):
            break
        case .leaseLost:
            return
        case .processed(finished: false), .heartbeatStopped:
            try? await againOnLostConnection { try await store.release(lease) }
            return
        }
        await complete(lease, collected, runtime)
    }

    private func complete(_ lease: ChunkLease, _ collected: LeasedOutcomes, _ runtime: StepRuntime) async {
        guard let checkpoint else { return }
        let (updates, outputs) = collected.rows(sinks: runtime.step.sinks.count)
        do {
            try await againOnLostConnection {
                try await checkpoint.store.complete(lease, updates: updates, outputs: outputs)
            }
        } catch let error as RunStoreError where error.isLeaseLost {
            // Another worker holds the chunk now: it probes the items and records them.
        } catch {
            abort("step '\(runtime.step.id)': cannot complete chunk \(lease.chunk): \(error)")
        }
    }

    /// Runs a call on the run store again, up to ``lostConnectionAttempts`` times in all, when the
    /// connection to a PostgreSQL store was lost (the statement failed; the next one reconnects). Every
    /// leased call is safe to repeat: a claim whose commit was lost lapses and is rescued, a repeated
    /// completion finds its chunk done, intents and totals are written as they are.
    func againOnLostConnection<T>(_ body: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch let error as PostgresError where error.isConnectionLost && attempt < Self.lostConnectionAttempts {
                attempt += 1
                try await realClock.sleep(until: realClock.now() + .milliseconds(100 * attempt))
            }
        }
    }

    /// Tries of a leased call on a lost connection (the first included).
    static let lostConnectionAttempts = 5

    private func totalKnown(_ runtime: StepRuntime) -> Bool { runtime.progress.withLock { $0.total != nil } }

    /// Writes the step's output files from its chunks' rows, in chunk order (input order).
    private func assembleOutputs(_ step: StepPlan, store: RunStore, runID: Int64) async throws {
        guard !step.sinks.isEmpty else { return }
        let files = StepSinkFiles(step.sinks, resumeOffsets: nil)
        _ = try files.open()
        for sink in step.sinks.indices {
            var from = 0
            while true {
                let page = try await store.chunkOutputs(runID: runID, step: step.id, sink: sink, from: from, limit: 256)
                guard let last = page.last else { break }
                var bytes = Array(repeating: [UInt8](), count: step.sinks.count)
                for chunk in page { bytes[sink].append(contentsOf: chunk.rows.utf8) }
                try files.append(bytes)
                from = last.chunk + 1
            }
        }
        files.synchronize()
    }
}

/// Reads the items of a step's leased chunks: one iterator kept between chunks (a worker's chunks mostly
/// come in input order), started again when a chunk lies behind it (a rescued one).
final class LeaseReader: @unchecked Sendable {
    private let step: StepPlan
    private let outputs: StepOutputs
    private var iterator: (any ItemIterator)?
    private var position = 0

    init(step: StepPlan, outputs: StepOutputs) {
        self.step = step
        self.outputs = outputs
    }

    /// The items at `positions` (fewer at the end of the input).
    func read(_ positions: Range<Int>) async throws -> [WorkItem] {
        if iterator == nil || positions.lowerBound < position {
            iterator = step.items.makeIterator(after: outputs)
            position = 0
        }
        guard let iterator else { return [] }
        var keys: [String] = []
        while position < positions.lowerBound {
            keys.removeAll(keepingCapacity: true)
            let want = min(1024, positions.lowerBound - position)
            try await iterator.skip(upTo: want, keys: &keys)
            position += keys.count
            if keys.count < want { return [] }
        }
        var items: [WorkItem] = []
        try await iterator.next(upTo: positions.count, into: &items)
        position += items.count
        return items
    }
}

extension Engine {
    /// Works, beside the run's own process, on the chunk steps of the checkpoint's run that are shared
    /// through the store and still have chunks to claim, until none is left (or `stop()`); runs no other
    /// step and never finishes the run: its own process does (`walletops worker`). The summary counts
    /// what this process did, and its ``RunSummary/stopCause`` says when an action's error stopped it.
    public func join() async throws -> RunSummary {
        guard let checkpoint, let leasing = options.leasing else {
            throw PlanError("joining a run needs its run store and a leasing configuration")
        }
        let started = realClock.now()
        let open = Set(try await checkpoint.store.openChunkSteps().filter { $0.runID == checkpoint.runID }.map(\.step))
        let outputs = try await checkpoint.finishedStepOutputs()
        finishedOutputs.withLock { $0 = outputs }
        return try await launch {
            for (index, step) in self.plan.steps.enumerated() where open.contains(step.id) && self.isRunning {
                guard let action = step.action as? any ChunkAction else { continue }
                let runtime = StepRuntime(
                    index: index, step: step, budget: step.failureBudget ?? self.plan.failureBudget,
                    progress: self.progressState[index], now: self.options.clock.now(), outputs: outputs)
                runtime.progress.withLock { $0.status = .running }
                await self.runLeasedChunks(runtime, action: action, leasing: leasing, coordinating: false)
                runtime.progress.withLock { $0.status = .succeeded }
            }
            let (abortReason, stopReason, stopCause, graceTask) = self.control.withLock {
                ($0.abortReason, $0.stopReason, $0.stopCause, $0.graceTask)
            }
            graceTask?.cancel()
            let steps = self.progressState.map { $0.withLock { $0 } }
            let status: RunStatus = abortReason != nil ? .aborted : (self.isRunning ? .completed : .interrupted)
            var summary = RunSummary(
                runID: checkpoint.runID, status: status, reason: abortReason ?? (self.isRunning ? nil : stopReason),
                steps: steps, elapsed: self.realClock.now() - started)
            summary.stopCause = status == .interrupted ? stopCause : nil
            return summary
        }
    }
}
