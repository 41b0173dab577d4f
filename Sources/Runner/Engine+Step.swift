import Foundation
import Playbook
import Synchronization

/// An item ready for a worker: what the checkpoint said about it.
struct PreparedItem: Sendable {
    var item: WorkItem
    /// Its position in the step's input.
    var index: Int
    /// The checkpoint has a row for it (its outcome must overwrite that row).
    var hadRow: Bool
    /// Attempts made by earlier invocations.
    var attempts: Int
    /// Found in doubt (`started`, or failed in doubt under retry-failed): probe before running.
    var needsProbe: Bool
}

/// A running step's shared state.
final class StepRuntime: Sendable {
    let index: Int
    let step: StepPlan
    let sideEffecting: Bool
    let bucket: TokenBucket?
    let budget: FailureBudget?
    let progress: ProgressBox
    /// Items handed to the feed, items given an outcome, and whether the input was read to the end: the
    /// step is complete only when every handed item got an outcome and the input ended.
    let tally = Mutex<(pushed: Int, finished: Int, exhausted: Bool)>((0, 0, false))
    /// A chunk step's action (nil: the step runs item by item).
    let chunkAction: (any ChunkAction)?
    /// Set when an outcome filled the checkpoint buffer and no one has flushed it yet.
    let needsFlush = Atomic<Bool>(false)
    /// The turns of the step's chunks in input order (``ChunkContext/inInputOrder(_:)``).
    let inputOrder = InputOrderGate()
    /// The outputs of the steps that finished before this one started.
    let outputs: StepOutputs

    init(
        index: Int, step: StepPlan, budget: FailureBudget?, progress: ProgressBox, now: Duration,
        outputs: StepOutputs = StepOutputs()
    ) {
        self.index = index
        self.step = step
        self.outputs = outputs
        self.sideEffecting = step.needsIntents
        self.chunkAction = step.action as? any ChunkAction
        self.bucket = step.ratePerSecond.map { TokenBucket(rate: $0, burst: step.burst, now: now) }
        self.budget = budget
        self.progress = progress
    }
}

/// Raised by the attempt timer.
struct AttemptTimeout: Error {}

extension Engine {
    /// Runs one step to its end; returns true when none of its items failed.
    func runStep(_ index: Int) async -> Bool {
        let step = plan.steps[index]
        let runtime = StepRuntime(
            index: index, step: step, budget: step.failureBudget ?? plan.failureBudget,
            progress: progressState[index], now: options.clock.now(), outputs: finishedOutputs.withLock { $0 })
        runtime.progress.withLock { $0.status = .running }
        try? await checkpoint?.recordStep(step.id, status: "running")
        // A chunk step's feed holds one chunk at least (a worker waits for a whole one) and no more: the rows
        // held are the chunks in flight plus the one being read, whatever the input's size.
        let feed = StepFeed<PreparedItem>(
            capacity: runtime.chunkAction == nil ? options.window : max(options.window, step.batch))
        if let chunkAction = runtime.chunkAction, let leasing = options.leasing, checkpoint != nil {
            await runLeasedChunks(runtime, action: chunkAction, leasing: leasing, coordinating: true)
        } else if let chunkAction = runtime.chunkAction, register(feed, stepIndex: index) {
            let workers = min(step.concurrency, plan.concurrency)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await chunkAction.prepare() }
                group.addTask { await self.fill(runtime, feed) }
                for _ in 0..<workers {
                    group.addTask { await self.workChunks(runtime, feed, action: chunkAction) }
                }
            }
            unregister(stepIndex: index)
        } else if runtime.chunkAction == nil, register(feed, stepIndex: index) {
            let concurrency = min(step.concurrency, plan.concurrency)
            // Workers of an action that never suspends run on the cores, one item after another: more
            // workers than cores would only contend for the feed's and the checkpoint buffer's locks.
            let workers = asImmediate(step.action) != nil ? min(concurrency, Self.cores) : concurrency
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.fill(runtime, feed) }
                for _ in 0..<workers {
                    group.addTask { await self.work(runtime, feed, workers: workers) }
                }
            }
            unregister(stepIndex: index)
        }
        actionCallsEnded(step: index)
        await flush(final: true)
        let (tally, counts) = (runtime.tally.withLock { $0 }, runtime.progress.withLock { $0 })
        if let files = pending.withLock({ $0.trackers[index]?.sinks?.files }) {
            // A step that completed without a failure has its outputs, if only their headers.
            if tally.exhausted && tally.finished == tally.pushed && counts.failed == 0 && !files.isOpen {
                do { _ = try files.open() } catch { abort("step '\(step.id)': \(error)") }
            }
            files.synchronize()
        }
        let complete = tally.exhausted && tally.finished == tally.pushed
        let failed = counts.failed > 0
        // A step whose failures aborted the run failed, though its unsent items have no outcome.
        let aborted = control.withLock { $0.abortReason != nil }
        let status: StepStatus = failed && (complete || aborted) ? .failed : (!complete ? .interrupted : .succeeded)
        runtime.progress.withLock { $0.status = status }
        try? await checkpoint?.recordStep(
            step.id, status: status.rawValue,
            message: "\(counts.succeeded) succeeded, \(counts.failed) failed, \(counts.rejected) rejected")
        return complete && !failed
    }

    /// Marks a step skipped because a need failed, and its items `skipped` (never overwriting an item
    /// that has a state already).
    func skipStep(_ index: Int, because reason: String) async {
        let step = plan.steps[index]
        actionCallsEnded(step: index)
        progressState[index].withLock { $0.status = .skipped }
        try? await checkpoint?.recordStep(step.id, status: "skipped", message: reason)
        // Items below the step's watermark are finished already (an earlier invocation ran it).
        var finished = 0
        if let checkpoint, let mark = try? await checkpoint.mark(step: step.id) { finished = mark.watermark }
        let iterator = step.items.makeIterator(after: finishedOutputs.withLock { $0 })
        var count = 0
        var position = -1
        var updates: [RunHandle.Update] = []
        var ended = false
        while isRunning {
            guard let item = try? await iterator.next() else {
                ended = true
                break
            }
            position += 1
            if position < finished { continue }
            count += 1
            updates.append(
                RunHandle.Update(
                    step: step.id, key: item.key, index: position, state: .skipped, attempts: 0, errorClass: nil,
                    message: "skipped: \(reason)", resultJSON: nil, idempotencyKey: nil, insertOnly: true))
            if updates.count >= options.flushBatch {
                await write(updates)
                updates = []
            }
        }
        if !updates.isEmpty { await write(updates) }
        // A stop before the last item was marked leaves the step unfinished: the run is not complete.
        progressState[index].withLock {
            $0.skipped = count
            if !ended { $0.status = .interrupted }
        }
    }

    // MARK: Filler

    /// Positions below the watermark whose unsucceeded rows a resume reads in one query: a few queries for
    /// a million rows rather than one per read batch, each an await on the store's queue.
    static let skipWindowPositions = 65_536

    /// The rows of a resume's skip window that did not succeed, handed out by read batch in position order.
    struct SkipWindow {
        private var rows: [(index: Int, key: String, state: ItemState)] = []
        private var next = 0
        /// The window's end: positions below it were read.
        private(set) var end = 0

        init() {}

        init(rows: [(index: Int, key: String, state: ItemState)], end: Int) {
            self.rows = rows
            self.end = end
        }

        /// The states of the window's unsucceeded rows in `range`, by key; `range`s come in increasing order.
        mutating func states(in range: Range<Int>) -> [String: ItemState] {
            while next < rows.count && rows[next].index < range.lowerBound { next += 1 }
            var states: [String: ItemState] = [:]
            while next < rows.count && rows[next].index < range.upperBound {
                states[rows[next].key] = rows[next].state
                next += 1
            }
            return states
        }
    }

    /// Reads items in batches, drops those already finished, commits intents for side-effecting steps,
    /// and hands the rest to the workers.
    ///
    /// On resume, items below the step's durable watermark are finished: those without a row succeeded;
    /// above it, a row decides (succeeded/rejected/failed: skip, started: probe) and no row means run.
    /// Rows are read by position range: one query per batch, and below the watermark one per
    /// ``skipWindowPositions``.
    func fill(_ runtime: StepRuntime, _ feed: StepFeed<PreparedItem>) async {
        defer { feed.finish() }
        let step = runtime.step
        let iterator = step.items.makeIterator(after: runtime.outputs)
        var lookups = false
        var resumedMark: RunHandle.Mark?
        if let checkpoint, checkpoint.isResumed {
            do {
                resumedMark = try await checkpoint.mark(step: step.id)
                let hasRows = try await checkpoint.hasItems(step: step.id)
                lookups = resumedMark != nil || hasRows
            } catch {
                abort("step '\(step.id)': cannot read checkpoints: \(error)")
                return
            }
        }
        let finishedBelow = resumedMark?.watermark ?? 0
        // Without a checkpoint no outcome is recorded, so nothing would ever close an open item; a step's
        // sinks still need the watermark to write in order.
        let tracked = checkpoint != nil || !step.sinks.isEmpty
        if tracked {
            var tracker = CheckpointBuffer.Tracker(step: step.id)
            tracker.carriesCovered = runtime.chunkAction == nil
            if !step.sinks.isEmpty {
                do {
                    tracker.sinks = try await openSinks(step, resumedAt: finishedBelow)
                } catch {
                    abort("step '\(step.id)': \(error)")
                    return
                }
            }
            pending.withLock { $0.trackers[runtime.index] = tracker }
        }
        let hasSinks = !step.sinks.isEmpty
        let retryFailed = checkpoint?.retryFailed ?? false
        var batch: [WorkItem] = []
        batch.reserveCapacity(options.readBatch)
        var position = 0
        var keysHash = KeysHash.initial
        var skippedKeys: [String] = []
        // The rows below the watermark that did not succeed, read ahead for ``Self/skipWindowPositions`` positions.
        var skipWindow = SkipWindow()
        var totalKnown = false
        while isRunning {
            // A whole batch below the watermark: every item there is finished, so a resume reads only keys
            // (no fields, no attachments: a validated key per row is the import's costliest read).
            if !retryFailed && position + options.readBatch <= finishedBelow {
                do {
                    let range = position..<(position + options.readBatch)
                    if lookups, let checkpoint, range.upperBound > skipWindow.end {
                        let end = min(finishedBelow, position + max(Self.skipWindowPositions, options.readBatch))
                        skipWindow = SkipWindow(
                            rows: try await checkpoint.unsucceeded(step: step.id, positions: position..<end), end: end)
                    }
                    let states = skipWindow.states(in: range)
                    if states.values.allSatisfy({ [.rejected, .failed].contains($0) }) {
                        skippedKeys.removeAll(keepingCapacity: true)
                        try await iterator.skip(upTo: options.readBatch, keys: &skippedKeys)
                        guard skippedKeys.count == options.readBatch else {
                            abort(Self.watermarkMismatch(step.id, finishedBelow))
                            return
                        }
                        var counts = (succeeded: 0, rejected: 0, failed: 0)
                        for key in skippedKeys {
                            keysHash = KeysHash.adding(key, to: keysHash)
                            switch states[key] {
                            case .rejected?: counts.rejected += 1
                            case .failed?: counts.failed += 1
                            default: counts.succeeded += 1
                            }
                        }
                        position += skippedKeys.count
                        if let resumedMark, position == resumedMark.watermark, keysHash != resumedMark.keysHash {
                            abort(Self.watermarkMismatch(step.id, resumedMark.watermark))
                            return
                        }
                        runtime.progress.withLock {
                            $0.succeeded += counts.succeeded
                            $0.rejected += counts.rejected
                            $0.failed += counts.failed
                            $0.resumed += skippedKeys.count
                        }
                        if tracked {
                            pending.withLock { buffer in
                                buffer.trackers[runtime.index]?.read = position
                                buffer.trackers[runtime.index]?.readHash = keysHash
                            }
                        }
                        continue
                    }
                } catch {
                    abort(
                        "step '\(step.id)': cannot read its items: \(error)",
                        inputProblem: (error as? any InputProblemReporting)?.inputProblem)
                    return
                }
            }
            batch.removeAll(keepingCapacity: true)
            do {
                try await iterator.next(upTo: options.readBatch, into: &batch)
            } catch {
                abort(
                    "step '\(step.id)': cannot read its items: \(error)",
                    inputProblem: (error as? any InputProblemReporting)?.inputProblem)
                return
            }
            if !totalKnown, let count = iterator.count {
                totalKnown = true
                runtime.progress.withLock { if $0.total == nil { $0.total = count } }
            }
            // A short read is the end of the input (the ``ItemIterator`` contract): the step is exhausted once
            // this batch is handed out, with no empty read after it, which a stop could come before.
            let ended = batch.count < options.readBatch
            if ended && position + batch.count < finishedBelow {
                abort(Self.watermarkMismatch(step.id, finishedBelow))
                return
            }
            if batch.isEmpty {
                runtime.tally.withLock { $0.exhausted = true }
                return
            }
            let first = position
            // Optionals, so the feed can move the items in.
            var prepared: [PreparedItem?] = []
            prepared.reserveCapacity(batch.count)
            // Their positions, to open them without reading them back.
            var opened: [Int] = []
            opened.reserveCapacity(batch.count)
            var states: [String: RunHandle.Checkpoint] = [:]
            if lookups, let checkpoint {
                do {
                    states = try await checkpoint.lookup(step: step.id, positions: first..<(first + batch.count))
                } catch {
                    abort("step '\(step.id)': cannot read checkpoints: \(error)")
                    return
                }
            }
            var hashes: [UInt64] = []
            hashes.reserveCapacity(batch.count)
            // Rows of items finished by an earlier invocation above the sinks' position, written again in order.
            var resumedRows: [(index: Int, rows: [[UInt8]])] = []
            let count = batch.count
            for offset in 0..<count {
                // Moved out of the batch (an empty item left in its place), not copied.
                var item = WorkItem(key: "")
                swap(&item, &batch[offset])
                let index = first + offset
                hashes.append(keysHash)
                keysHash = KeysHash.adding(item.key, to: keysHash)
                if let resumedMark, index + 1 == resumedMark.watermark, keysHash != resumedMark.keysHash {
                    abort(Self.watermarkMismatch(step.id, resumedMark.watermark))
                    return
                }
                guard let found = states[item.key] else {
                    if index < finishedBelow {
                        runtime.progress.withLock {
                            $0.succeeded += 1
                            $0.resumed += 1
                        }
                    } else {
                        opened.append(index)
                        prepared.append(
                            PreparedItem(item: item, index: index, hadRow: false, attempts: 0, needsProbe: false))
                    }
                    continue
                }
                // Below the watermark the sinks have the item's rows already.
                if hasSinks, index >= finishedBelow,
                    found.state == .succeeded || found.state == .rejected || found.state == .failed,
                    found.state != .failed || !retryFailed
                {
                    resumedRows.append(
                        (
                            index,
                            runtime.sinkRows(
                                item, state: found.state, outputs: JSONText.parseObject(found.resultJSON ?? "{}"),
                                message: found.message, errorClass: found.errorClass)
                        ))
                }
                switch found.state {
                case .succeeded:
                    runtime.progress.withLock {
                        $0.succeeded += 1
                        $0.resumed += 1
                    }
                    if item.key == ItemSource.singleKey {
                        let outputs = JSONText.parseObject(found.resultJSON ?? "{}")
                        finishedOutputs.withLock { $0.byStep[step.id] = outputs }
                    }
                case .rejected:
                    runtime.progress.withLock {
                        $0.rejected += 1
                        $0.resumed += 1
                    }
                case .failed where !retryFailed:
                    runtime.progress.withLock {
                        $0.failed += 1
                        $0.resumed += 1
                    }
                case .failed:
                    let inDoubt = found.errorClass == ErrorClass.inDoubt.rawValue && runtime.sideEffecting
                    opened.append(index)
                    prepared.append(
                        PreparedItem(
                            item: item, index: index, hadRow: true, attempts: found.attempts, needsProbe: inDoubt))
                case .started:
                    opened.append(index)
                    prepared.append(
                        PreparedItem(
                            item: item, index: index, hadRow: true, attempts: found.attempts,
                            needsProbe: runtime.sideEffecting))
                case .pending, .skipped:
                    opened.append(index)
                    prepared.append(
                        PreparedItem(
                            item: item, index: index, hadRow: true, attempts: found.attempts, needsProbe: false))
                }
            }
            position += count
            // Open the handed-out items before any can finish; finished ones let the watermark pass.
            if tracked {
                pending.withLock { buffer in
                    for (index, rows) in resumedRows { buffer.trackers[runtime.index]?.sinks?.rows[index] = rows }
                    for index in opened {
                        buffer.trackers[runtime.index]?.open.open(index, hash: hashes[index - first])
                    }
                    buffer.trackers[runtime.index]?.read = position
                    buffer.trackers[runtime.index]?.readHash = keysHash
                }
            }
            if prepared.isEmpty {
                if ended {
                    runtime.tally.withLock { $0.exhausted = true }
                    return
                }
                continue
            }
            if runtime.sideEffecting, let checkpoint {
                // The intent protocol: `started` is committed before any worker can perform the effect.
                let intents = prepared.compactMap { $0 }.map {
                    RunHandle.Update(
                        step: step.id, key: $0.item.key, index: $0.index, state: .started, attempts: $0.attempts,
                        errorClass: nil, message: nil, resultJSON: nil,
                        idempotencyKey: IdempotencyKey.make(
                            runID: checkpoint.runID, stepIndex: runtime.index, itemKey: $0.item.key))
                }
                do {
                    try await checkpoint.write(intents)
                } catch {
                    abort("step '\(step.id)': cannot write intents: \(error)")
                    return
                }
            }
            runtime.tally.withLock { $0.pushed += prepared.count }
            switch await feed.push(moving: &prepared) {
            case .accepted:
                if ended {
                    runtime.tally.withLock { $0.exhausted = true }
                    return
                }
                continue
            case .closedAfterAccepting:
                // Delivered, then a stop closed the feed: workers may have run part of the batch, and
                // `close()` already withdrew the part never taken. Withdrawing the whole batch here would
                // turn items that ran back into `pending`, and a resume would run them again unprobed.
                // The input ended with it all the same; the items withdrawn keep the step incomplete.
                if ended { runtime.tally.withLock { $0.exhausted = true } }
                return
            case .rejected:
                // Closed before delivery (a stop): nothing of this batch ran.
                if runtime.sideEffecting, checkpoint != nil {
                    let withdrawn = prepared.compactMap { $0 }.filter { !$0.needsProbe }.map {
                        RunHandle.Update(
                            step: step.id, key: $0.item.key, index: $0.index, state: .pending, attempts: $0.attempts,
                            errorClass: nil, message: nil, resultJSON: nil, idempotencyKey: nil)
                    }
                    pending.withLock { buffer in
                        for update in withdrawn { buffer.append(update, stepIndex: runtime.index, closesItem: false) }
                    }
                }
                return
            }
        }
    }

    static func watermarkMismatch(_ step: String, _ watermark: Int) -> String {
        "step '\(step)': the first \(watermark) items are not the ones the checkpoint recorded as finished "
            + "(the input changed under the run); start the run fresh"
    }

    // MARK: Workers

    /// The processor cores this process may use.
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// `action` as an ``ImmediateAction`` when it is one and ``Options/immediateActions`` is on, else nil
    /// (its items go through `run`).
    func asImmediate(_ action: any Action) -> (any ImmediateAction)? {
        options.immediateActions ? action as? any ImmediateAction : nil
    }

    /// Items a worker takes at most at once, when its items are quick.
    static let maxTake = 32
    /// Items taking less than this (on average over a worker's last batch) are quick.
    static let quickItem = Duration.microseconds(20)

    /// A worker: runs items one at a time until the feed ends.
    ///
    /// Quick items are taken in batches (doubling up to ``maxTake`` while they stay under ``quickItem``;
    /// one at a time as soon as a batch is not quick, so slow items are not held in batches), and
    /// each plain success costs one atomic add and one short lock. An item without a probe, rate limit or
    /// timeout is run inline (no extra async frame); anything else, or a first attempt that throws,
    /// goes through ``process(_:_:_:first:)``. An ``ImmediateAction`` (unless switched off) is called
    /// without an async call at all, and its plain successes are published together, one lock per
    /// batch: the batch cannot hold one of them back, as no item of it suspends.
    func work(_ runtime: StepRuntime, _ feed: StepFeed<PreparedItem>, workers: Int) async {
        let inline = runtime.bucket == nil && runtime.step.timeout == nil
        let tracked = checkpoint != nil
        let action = runtime.step.action
        let immediateAction = asImmediate(action)
        let immediate = immediateAction != nil
        var limit = 1
        // Optionals: each item is moved out as it starts (no copy); those left are the unstarted ones.
        var taken: [PreparedItem?] = []
        taken.reserveCapacity(Self.maxTake)
        // Plain successes of immediate items not yet in the checkpoint buffer.
        var quick: [CheckpointBuffer.Covered] = []
        quick.reserveCapacity(Self.maxTake)
        var quickCount = 0
        // One context per worker for the inline path, updated per item (its clock is not retained and
        // released per item).
        var context = ActionContext(
            runID: checkpoint?.runID ?? 0, stepID: runtime.step.id, stepIndex: runtime.index, itemKey: "",
            attempt: 0, clock: options.clock)
        // Moves `quick` into the buffer (and counts immediate successes); true when the buffer is full.
        // Called before anything can suspend.
        func publish() -> Bool {
            if quickCount > 0 {
                runtime.progress.succeededQuickly(quickCount)
                quickCount = 0
            }
            guard !quick.isEmpty else { return false }
            defer { quick.removeAll(keepingCapacity: true) }
            return pending.withLock { buffer in
                for outcome in quick { buffer.recordCovered(outcome, stepIndex: runtime.index) }
                return buffer.count >= options.flushBatch
            }
        }
        while await feed.take(upTo: limit, share: workers, into: &taken) {
            let started = ContinuousClock.now
            var ran = 0
            var finished = 0
            // A full buffer is flushed after the batch: a worker waiting on a flush with items of its
            // batch still unstarted would hold the watermark below everything the others finish.
            var full = false
            for position in taken.indices {
                // A stop withdraws what the feed still holds; this batch's unstarted items likewise.
                if ran > 0 && !isRunning { break }
                if let limiter {
                    full = publish() || full
                    do { try await limiter.acquire() } catch { break }
                }
                guard let prepared = taken[position].take() else { break }
                ran += 1
                if inline && !prepared.needsProbe {
                    let attempts = prepared.attempts + 1
                    context.itemKey = prepared.item.key
                    context.attempt = attempts
                    let outcome: Result<ActionResult, any Error>
                    if let immediateAction {
                        do {
                            outcome = .success(try immediateAction.runImmediately(prepared.item, context: context))
                        } catch {
                            outcome = .failure(error)
                        }
                    } else {
                        do {
                            outcome = .success(try await action.run(prepared.item, context: context))
                        } catch {
                            outcome = .failure(error)
                        }
                    }
                    if case .success(let result) = outcome, result.outputs.isEmpty, !runtime.sideEffecting,
                        !prepared.hadRow
                    {
                        if immediate { quickCount += 1 } else { runtime.progress.succeededQuickly() }
                        finished += 1
                        if tracked {
                            // Published at once, not at the batch's end: a later item of the batch may be
                            // stuck, and the watermark must not wait for it (immediate items cannot be).
                            let outcome = CheckpointBuffer.Covered(
                                index: prepared.index, key: prepared.item.key, attempts: attempts)
                            if immediate {
                                quick.append(outcome)
                            } else {
                                full =
                                    pending.withLock { buffer in
                                        buffer.recordCovered(outcome, stepIndex: runtime.index)
                                        return buffer.count >= options.flushBatch
                                    } || full
                            }
                        }
                    } else {
                        full = publish() || full
                        _ = await process(prepared, runtime, first: outcome)
                    }
                } else {
                    full = publish() || full
                    _ = await process(prepared, runtime)
                }
                limiter?.release()
            }
            full = publish() || full
            if ran < taken.count && !isCancelling {
                withdraw(taken[ran...].compactMap { $0 }, stepIndex: runtime.index)
            }
            // Read only when the step ends, after every worker has.
            if finished > 0 { runtime.tally.withLock { $0.finished += finished } }
            if full { await flush() }
            if ran < taken.count { return }
            let perItem = (ContinuousClock.now - started) / max(1, ran)
            limit = perItem < Self.quickItem ? min(Self.maxTake, limit * 2) : 1
        }
    }

    enum ProbeVerdict {
        case done(ActionResult)
        case run
        case unknown(String)
        case abandoned
    }

    /// Asks a side-effecting action whether an in-doubt item's effect happened.
    func probeInDoubt(_ prepared: PreparedItem, _ runtime: StepRuntime, attempts: Int) async
        -> ProbeVerdict
    {
        let item = prepared.item
        let context = makeContext(prepared, runtime, attempt: max(1, attempts))
        do {
            switch try await runtime.step.action.probe(item, context: context) {
            case .done(let result): return .done(result)
            case .notDone: return .run
            case .unknown:
                return .unknown("outcome unknown: the probe could not tell; not retried to avoid a duplicate")
            }
        } catch {
            if isCancelling || Task.isCancelled { return .abandoned }
            // Unreachable, or the sign-in refused: left in doubt for the resume, and the run stops.
            if suspendIfStopping(error, item: item) { return .abandoned }
            return .unknown("outcome unknown: the probe failed: \(item.redacting(String(describing: error)))")
        }
    }

    /// Stops the run (``suspend(_:cause:)``, message redacted for `item`) when `error` carries a
    /// ``RunStopCause``; whether it did.
    func suspendIfStopping(_ error: any Error, item: WorkItem) -> Bool {
        guard let stopping = ActionError.of(error), let cause = stopping.stopCause else { return false }
        suspend(item.redacting(stopping.message), cause: cause)
        return true
    }

    func makeContext(_ prepared: PreparedItem, _ runtime: StepRuntime, attempt: Int) -> ActionContext {
        ActionContext(
            runID: checkpoint?.runID ?? 0, stepID: runtime.step.id, stepIndex: runtime.index,
            itemKey: prepared.item.key, attempt: attempt, clock: options.clock)
    }

    /// Runs one item through its attempts. Returns false when it was left without an outcome (stop).
    /// `first` is the outcome of a first attempt the worker already made inline.
    func process(
        _ prepared: PreparedItem, _ runtime: StepRuntime, first: Result<ActionResult, any Error>? = nil
    ) async -> Bool {
        let item = prepared.item
        let clock = options.clock
        var attempts = prepared.attempts
        if prepared.needsProbe {
            switch await probeInDoubt(prepared, runtime, attempts: attempts) {
            case .done(let result):
                await finish(prepared, runtime, .succeeded, attempts: attempts, result: result)
                return true
            case .run:
                break
            case .unknown(let message):
                await finish(prepared, runtime, .failed, attempts: attempts, errorClass: .inDoubt, message: message)
                return true
            case .abandoned:
                return false
            }
        }
        var tries = 0
        var first = first
        while true {
            if first == nil, let bucket = runtime.bucket, let until = bucket.reserve(now: clock.now()) {
                do { try await clock.sleep(until: until) } catch { return false }
            }
            tries += 1
            attempts += 1
            let context = makeContext(prepared, runtime, attempt: attempts)
            do {
                let result: ActionResult
                if let made = first {
                    first = nil
                    result = try made.get()
                } else if let timeout = runtime.step.timeout {
                    result = try await runWithTimeout(
                        runtime.step.action, item, context, deadline: clock.now() + timeout)
                } else {
                    result = try await runtime.step.action.run(item, context: context)
                }
                await finish(prepared, runtime, .succeeded, attempts: attempts, result: result)
                return true
            } catch {
                if isCancelling || (Task.isCancelled && error is CancellationError) { return false }
                var errorClass: ErrorClass
                var message: String
                var timedOut = false
                var stopCause: RunStopCause?
                switch ActionError.of(error) ?? error {
                case let actionError as ActionError:
                    stopCause = actionError.stopCause
                    if stopCause == .unauthorized {
                        // No retry can help and every later item would be refused alike: stop now.
                        suspend(item.redacting(actionError.message), cause: .unauthorized)
                        return false
                    }
                    if let reason = actionError.rejectReason {
                        await finish(
                            prepared, runtime, .rejected, attempts: attempts, errorClass: .permanent, message: reason)
                        return true
                    }
                    errorClass = actionError.errorClass
                    message = actionError.message
                case is AttemptTimeout:
                    timedOut = true
                    errorClass = runtime.sideEffecting ? .inDoubt : .retryable
                    message = "attempt \(attempts) timed out after \(runtime.step.timeout ?? .zero)"
                default:
                    errorClass = .permanent
                    message = String(describing: error)
                }
                if errorClass == .inDoubt {
                    if runtime.sideEffecting {
                        switch await probeInDoubt(prepared, runtime, attempts: attempts) {
                        case .done(let result):
                            await finish(prepared, runtime, .succeeded, attempts: attempts, result: result)
                            return true
                        case .run:
                            errorClass = .retryable
                        case .unknown(let why):
                            await finish(
                                prepared, runtime, .failed, attempts: attempts, errorClass: .inDoubt,
                                message: "\(message); \(why)")
                            return true
                        case .abandoned:
                            return false
                        }
                    }
                }
                // A probe that said "not done" made the attempt retryable; timeouts follow their own switch.
                let retryable =
                    timedOut ? runtime.step.retry.retryTimeouts : runtime.step.retry.retryOn.contains(errorClass)
                if retryable && tries < runtime.step.retry.maxAttempts {
                    if !isRunning { return false }
                    let delay = runtime.step.retry.backoff(afterAttempt: tries, key: item.key)
                    do { try await clock.sleep(until: clock.now() + delay) } catch { return false }
                    if !isRunning { return false }
                    continue
                }
                if let stopCause {
                    // Left without an outcome, as a stop leaves it: a resume sends it again (probed if in doubt).
                    suspend(item.redacting(message), cause: stopCause)
                    return false
                }
                await finish(prepared, runtime, .failed, attempts: attempts, errorClass: errorClass, message: message)
                return true
            }
        }
    }

    private func runWithTimeout(_ action: any Action, _ item: WorkItem, _ context: ActionContext, deadline: Duration)
        async throws -> ActionResult
    {
        let clock = options.clock
        return try await withThrowingTaskGroup(of: ActionResult?.self) { group in
            group.addTask { try await action.run(item, context: context) }
            group.addTask {
                try await clock.sleep(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else { throw AttemptTimeout() }
            return result
        }
    }

    /// Records an item's outcome (counters, budget, checkpoint), flushing when the buffer is full.
    func finish(
        _ prepared: PreparedItem, _ runtime: StepRuntime, _ state: ItemState, attempts: Int,
        errorClass: ErrorClass? = nil, message: String? = nil, result: ActionResult? = nil
    ) async {
        if record(
            prepared, runtime, state, attempts: attempts, errorClass: errorClass, message: message, result: result)
        {
            await flush()
        }
    }

    /// Records an item's outcome: counters, budget, checkpoint buffer (or `collecting`, a leased chunk's
    /// outcomes). True when the buffer is full.
    func record(
        _ prepared: PreparedItem, _ runtime: StepRuntime, _ state: ItemState, attempts: Int,
        errorClass: ErrorClass? = nil, message: String? = nil, result: ActionResult? = nil,
        collecting: LeasedOutcomes? = nil
    ) -> Bool {
        let item = prepared.item
        runtime.tally.withLock { $0.finished += 1 }
        let exceeded: (Int, Int)? = runtime.progress.withLock { progress in
            switch state {
            case .succeeded: progress.succeeded += 1
            case .failed: progress.failed += 1
            case .rejected: progress.rejected += 1
            default: progress.skipped += 1
            }
            // Rejected items are bad input, reported apart: they neither fail the step nor use its budget.
            guard state == .failed, let budget = runtime.budget else { return nil }
            let failures = progress.failed
            return budget.isExceeded(failures: failures, finished: progress.done) ? (failures, progress.done) : nil
        }
        var full = false
        if state == .succeeded, item.key == ItemSource.singleKey {
            // What a later step may read: the outputs as the checkpoint keeps them.
            var outputs = result?.outputs ?? [:]
            for name in result?.secretOutputs ?? [] { outputs[name] = nil }
            if !item.secretFields.isEmpty { outputs = outputs.mapValues { item.redacting($0) } }
            finishedOutputs.withLock { $0.byStep[runtime.step.id] = outputs }
        }
        let hasSinks = !runtime.step.sinks.isEmpty
        if checkpoint != nil || hasSinks {
            let runID = checkpoint?.runID ?? 0
            var outputs = result?.outputs ?? [:]
            for name in result?.secretOutputs ?? [] { outputs[name] = nil }
            if !item.secretFields.isEmpty { outputs = outputs.mapValues { item.redacting($0) } }
            let redactedMessage = message.map { item.redacting($0) }
            // A chunk step's success keeps its outputs in memory until the watermark passes it (the sinks
            // have its rows by then); it gets a row, and its outputs JSON, only if a flush finds it above.
            let covered =
                state == .succeeded && (outputs.isEmpty || runtime.chunkAction != nil) && !runtime.sideEffecting
                && !prepared.hadRow
            var update = RunHandle.Update(
                step: runtime.step.id, key: item.key, index: prepared.index, state: state, attempts: attempts,
                errorClass: errorClass?.rawValue, message: redactedMessage,
                resultJSON: covered || outputs.isEmpty ? nil : JSONText.object(outputs),
                idempotencyKey: runtime.sideEffecting
                    ? IdempotencyKey.make(runID: runID, stepIndex: runtime.index, itemKey: item.key)
                    : nil,
                coveredByWatermark: covered)
            if covered { update.coveredOutputs = outputs }
            let sinkRows =
                hasSinks
                ? runtime.sinkRows(
                    item, state: state, outputs: outputs, message: redactedMessage, errorClass: errorClass?.rawValue)
                : nil
            if let collecting {
                collecting.add(update, sinkRows: sinkRows)
            } else {
                full = record(update, stepIndex: runtime.index, sinkRows: sinkRows)
            }
        }
        if let (failures, finished) = exceeded {
            abort("step '\(runtime.step.id)' exceeded its failure budget: \(failures) of \(finished) items failed")
        }
        return full
    }
}
