import TextFormats

/// Chunk steps: a ``ChunkAction``'s items go to it in chunks, and every item ends with its own outcome.
extension Engine {
    /// A chunk worker: takes whole chunks (consecutive items, in input order) until the feed ends.
    func workChunks(_ runtime: StepRuntime, _ feed: StepFeed<PreparedItem>, action: any ChunkAction) async {
        var taken: [PreparedItem] = []
        taken.reserveCapacity(runtime.step.batch)
        while let number = await feed.take(chunkOf: runtime.step.batch, into: &taken) {
            let turn = InputOrderGate.Turn(gate: runtime.inputOrder, number: number)
            // Whatever becomes of the chunk, later chunks' admissions do not wait for it any longer.
            defer { turn.pass() }
            guard isRunning else {
                // Taken just as a stop came: none of it started.
                if !isCancelling { withdraw(taken, stepIndex: runtime.index) }
                return
            }
            if let limiter {
                do { try await limiter.acquire() } catch {
                    withdraw(taken, stepIndex: runtime.index)
                    return
                }
            }
            let finished = await processChunk(taken, runtime, action, turn: turn)
            limiter?.release()
            if !finished { return }
            // The chunk is the commit interval (Spring Batch's): its outcomes are committed before this
            // worker takes another, so a crash leaves at most the chunks in flight to do again.
            await flush()
        }
    }

    /// An item of a chunk on its way through its attempts.
    struct ChunkItem {
        var prepared: PreparedItem
        /// Attempts so far, counting earlier invocations.
        var attempts: Int
    }

    /// Runs `items` (a chunk, or a part of one being scanned) through their attempts: the chunk is sent,
    /// each item's outcome recorded; items that failed alone with a class the step retries are sent again
    /// together after the backoff; a chunk that failed as a whole is retried whole, and when it keeps
    /// failing (permanent, or in doubt and not done) it is split in halves, down to single items, so one
    /// bad item is isolated and the rest succeed. A chunk that exhausts its retries with a retryable
    /// error is not split: every item fails with it (the service, not an item, is at fault).
    ///
    /// Returns false when a stop left items without an outcome (a resume runs them again).
    /// With `collecting`, the outcomes go there (a leased chunk writes them with its completion) instead
    /// of the checkpoint buffer.
    func processChunk(
        _ items: [PreparedItem], _ runtime: StepRuntime, _ action: any ChunkAction, turn: InputOrderGate.Turn? = nil,
        collecting: LeasedOutcomes? = nil
    ) async -> Bool {
        // Admission in input order belongs to the first attempt only.
        var turn = turn
        defer { turn?.pass() }
        var pending = items.map { ChunkItem(prepared: $0, attempts: $0.attempts) }
        // Items found in doubt from an earlier invocation: asked before anything is sent again.
        let doubtful = pending.filter(\.prepared.needsProbe)
        if !doubtful.isEmpty {
            guard let undecided = await probeChunk(doubtful, runtime, action, message: nil, collecting: collecting)
            else { return false }
            let keys = Set(undecided.map(\.prepared.item.key))
            pending = pending.filter { !$0.prepared.needsProbe || keys.contains($0.prepared.item.key) }
        }
        let retry = runtime.step.retry
        let clock = options.clock
        var tries = 0
        while !pending.isEmpty {
            if let bucket = runtime.bucket, let until = bucket.reserve(now: clock.now()) {
                do { try await clock.sleep(until: until) } catch { return false }
            }
            tries += 1
            for index in pending.indices { pending[index].attempts += 1 }
            let context = ChunkContext(
                runID: checkpoint?.runID ?? 0, stepID: runtime.step.id, stepIndex: runtime.index,
                attempt: pending.map(\.attempts).max() ?? 1, clock: clock, turn: turn, work: runtime.progress)
            let chunk = pending.map(\.prepared.item)
            let outcomes: [ItemOutcome]
            do {
                defer {
                    turn?.pass()
                    turn = nil
                }
                outcomes = try await runChunk(action, chunk, context, timeout: runtime.step.timeout)
                guard outcomes.count == chunk.count else {
                    throw ActionError.permanent(
                        "action '\(action.name)' answered \(outcomes.count) outcomes for a chunk of \(chunk.count)")
                }
            } catch {
                if isCancelling || (Task.isCancelled && error is CancellationError) { return false }
                let error = ActionError.of(error) ?? error
                var (errorClass, message, timedOut) = classify(error, attempts: pending.map(\.attempts).max() ?? 1)
                let stopCause = (error as? ActionError)?.stopCause
                if stopCause == .unauthorized {
                    // No retry can help and every later chunk would be refused alike: stop now, as a stop
                    // leaves the chunk (its intents probed by the resume).
                    suspend(chunk[0].redacting(message), cause: .unauthorized)
                    return false
                }
                // Without intents an in-doubt chunk is safe to send again (idempotent, or no lasting effect).
                if errorClass == .inDoubt, !runtime.sideEffecting { errorClass = .retryable }
                if errorClass == .inDoubt, runtime.sideEffecting {
                    guard
                        let undecided = await probeChunk(
                            pending, runtime, action, message: message, collecting: collecting)
                    else {
                        return false
                    }
                    pending = undecided
                    if pending.isEmpty { return true }
                    errorClass = .retryable
                }
                let retryable = timedOut ? retry.retryTimeouts : retry.retryOn.contains(errorClass)
                if retryable && tries < retry.maxAttempts {
                    guard await backoff(runtime, afterAttempt: tries, key: chunk[0].key) else { return false }
                    continue
                }
                if let stopCause {
                    // The service is down: every later chunk would fail alike. Left without outcomes, as a
                    // stop leaves them, for a resume when it is back (exit 75).
                    suspend(chunk[0].redacting(message), cause: stopCause)
                    return false
                }
                if pending.count > 1 && errorClass != .retryable && !timedOut {
                    // Chunk scanning: each half gets the step's attempts anew.
                    guard isRunning else { return false }
                    let half = pending.count / 2
                    let first = pending[..<half].map { Self.fresh($0) }
                    let second = pending[half...].map { Self.fresh($0) }
                    let firstDone = await processChunk(first, runtime, action, collecting: collecting)
                    guard firstDone, isRunning else { return false }
                    return await processChunk(second, runtime, action, collecting: collecting)
                }
                for item in pending {
                    finishChunkItem(
                        item, runtime, .failed, errorClass: errorClass, message: message, collecting: collecting)
                }
                await flushIfFull(runtime)
                return true
            }
            var again: [ChunkItem] = []
            var inDoubt: [ChunkItem] = []
            for (item, outcome) in zip(pending, outcomes) {
                switch outcome {
                case .succeeded(let result):
                    finishChunkItem(item, runtime, .succeeded, result: result, collecting: collecting)
                case .rejected(let reason, let outputs):
                    finishChunkItem(
                        item, runtime, .rejected, errorClass: .permanent, message: reason,
                        result: ActionResult(outputs: outputs), collecting: collecting)
                case .failed(.inDoubt, _) where runtime.sideEffecting:
                    inDoubt.append(item)
                case .failed(var errorClass, let message):
                    if errorClass == .inDoubt { errorClass = .retryable }
                    if retry.retryOn.contains(errorClass) && tries < retry.maxAttempts {
                        again.append(item)
                    } else {
                        finishChunkItem(
                            item, runtime, .failed, errorClass: errorClass, message: message, collecting: collecting)
                    }
                }
            }
            if !inDoubt.isEmpty {
                guard
                    let undecided = await probeChunk(
                        inDoubt, runtime, action, message: "no answer for the item", collecting: collecting)
                else { return false }
                for item in undecided {
                    if retry.retryOn.contains(.inDoubt) && tries < retry.maxAttempts {
                        again.append(item)
                    } else {
                        finishChunkItem(
                            item, runtime, .failed, errorClass: .inDoubt,
                            message: "no answer for the item after \(item.attempts) attempts", collecting: collecting)
                    }
                }
            }
            await flushIfFull(runtime)
            pending = again.sorted { $0.prepared.index < $1.prepared.index }
            if !pending.isEmpty {
                guard await backoff(runtime, afterAttempt: tries, key: pending[0].prepared.item.key) else {
                    return false
                }
            }
        }
        return true
    }

    /// An item handed to a half of a scanned chunk: no probe left to make.
    private static func fresh(_ item: ChunkItem) -> PreparedItem {
        var prepared = item.prepared
        prepared.attempts = item.attempts
        prepared.needsProbe = false
        return prepared
    }

    /// Asks the action whether the effects of `items` happened (side-effecting steps): done items succeed,
    /// items the probe cannot tell about fail in doubt, and the items not done are returned to be sent.
    /// Nil when a stop came while asking.
    private func probeChunk(
        _ items: [ChunkItem], _ runtime: StepRuntime, _ action: any ChunkAction, message: String?,
        collecting: LeasedOutcomes?
    ) async -> [ChunkItem]? {
        let context = ChunkContext(
            runID: checkpoint?.runID ?? 0, stepID: runtime.step.id, stepIndex: runtime.index,
            attempt: max(1, items.map(\.attempts).max() ?? 1), clock: options.clock, turn: nil,
            work: runtime.progress)
        let prefix = message.map { "\($0); " } ?? ""
        let answers: [ProbeOutcome]
        do {
            answers = try await action.probe(chunk: items.map(\.prepared.item), context: context)
        } catch {
            if isCancelling || Task.isCancelled { return nil }
            // The service unreachable or the sign-in refused: the items stay in doubt (their intents kept)
            // for the resume to probe, and the run stops as for a send's same error.
            if suspendIfStopping(error, item: items[0].prepared.item) { return nil }
            let why =
                "outcome unknown: the probe failed: \(items[0].prepared.item.redacting(String(describing: error)))"
            for item in items {
                finishChunkItem(
                    item, runtime, .failed, errorClass: .inDoubt, message: prefix + why, collecting: collecting)
            }
            return []
        }
        var notDone: [ChunkItem] = []
        for (offset, item) in items.enumerated() {
            switch offset < answers.count ? answers[offset] : .unknown {
            case .done(let result): finishChunkItem(item, runtime, .succeeded, result: result, collecting: collecting)
            case .notDone: notDone.append(item)
            case .unknown:
                finishChunkItem(
                    item, runtime, .failed, errorClass: .inDoubt,
                    message: prefix + "outcome unknown: the probe could not tell; not retried to avoid a duplicate",
                    collecting: collecting)
            }
        }
        return notDone
    }

    /// The class, message and timeout flag of a whole chunk's failure.
    private func classify(_ error: any Error, attempts: Int) -> (ErrorClass, String, Bool) {
        switch error {
        case let actionError as ActionError:
            // A whole chunk cannot be one item's bad input: scanning finds the item.
            return (actionError.errorClass, actionError.rejectReason ?? actionError.message, false)
        case is AttemptTimeout:
            return (.retryable, "attempt \(attempts) timed out", true)
        default:
            return (.permanent, String(describing: error), false)
        }
    }

    /// Sleeps the step's retry backoff; false when a stop came first.
    private func backoff(_ runtime: StepRuntime, afterAttempt tries: Int, key: String) async -> Bool {
        guard isRunning else { return false }
        let clock = options.clock
        let delay = runtime.step.retry.backoff(afterAttempt: tries, key: key)
        do { try await clock.sleep(until: clock.now() + delay) } catch { return false }
        return isRunning
    }

    /// Flushes when an outcome of the step filled the checkpoint buffer.
    private func flushIfFull(_ runtime: StepRuntime) async {
        if runtime.needsFlush.exchange(false, ordering: .relaxed) { await flush() }
    }

    /// Records one item's outcome (counters, budget, checkpoint and sinks); flushing is the caller's.
    private func finishChunkItem(
        _ item: ChunkItem, _ runtime: StepRuntime, _ state: ItemState, errorClass: ErrorClass? = nil,
        message: String? = nil, result: ActionResult? = nil, collecting: LeasedOutcomes?
    ) {
        if record(
            item.prepared, runtime, state, attempts: item.attempts, errorClass: errorClass, message: message,
            result: result, collecting: collecting)
        {
            runtime.needsFlush.store(true, ordering: .relaxed)
        }
    }

    private func runChunk(
        _ action: any ChunkAction, _ chunk: [WorkItem], _ context: ChunkContext, timeout: Duration?
    ) async throws -> [ItemOutcome] {
        guard let timeout else { return try await action.run(chunk: chunk, context: context) }
        let clock = options.clock
        let deadline = clock.now() + timeout
        return try await withThrowingTaskGroup(of: [ItemOutcome]?.self) { group in
            group.addTask { try await action.run(chunk: chunk, context: context) }
            group.addTask {
                try await clock.sleep(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let outcomes = first else { throw AttemptTimeout() }
            return outcomes
        }
    }
}

extension StepRuntime {
    /// The step's sink rows of an item with this outcome (one entry per sink, empty for none), with the
    /// item's secret values redacted should an action put one in a row.
    func sinkRows(
        _ item: WorkItem, state: ItemState, outputs: [String: String], message: String?, errorClass: String?
    ) -> [[UInt8]] {
        var fields = item.fields
        for name in item.secretFields { fields[name] = nil }
        let record = SinkRecord(
            key: item.key, fields: fields, state: state, outputs: outputs, message: message, errorClass: errorClass)
        return step.sinks.map { sink in
            var bytes: [UInt8] = []
            for row in sink.rows(record) {
                CSVField.appendRecord(item.secretFields.isEmpty ? row : row.map(item.redacting), to: &bytes)
            }
            return bytes
        }
    }
}

extension Engine {
    /// Opens a chunk step's sink files: started afresh on a new run, truncated to their committed offsets
    /// on a resumed one (whose sinks must have reached the step's watermark, `finishedBelow`).
    func openSinks(_ step: StepPlan, resumedAt finishedBelow: Int) async throws -> CheckpointBuffer.Sinks {
        var committed: [Int: (position: Int, offset: Int64)] = [:]
        if let checkpoint, checkpoint.isResumed { committed = try await checkpoint.sinkMarks(step: step.id) }
        let position = committed[0]?.position ?? 0
        guard position == finishedBelow, committed.values.allSatisfy({ $0.position == position }) else {
            throw SinkError(
                description:
                    "its outputs were written up to item \(position) but its checkpoint says \(finishedBelow); "
                    + "start the run fresh")
        }
        let offsets = committed.isEmpty ? nil : step.sinks.indices.map { committed[$0]?.offset ?? -1 }
        let files = StepSinkFiles(step.sinks, resumeOffsets: offsets)
        // A resumed run's files exist: opened (truncated to their offsets) now rather than at the first
        // flush, so what the stopped run left unsynced is written back while this one works. A file that
        // cannot be is refused by that flush, as in a run that writes no row before it stops.
        if let offsets, offsets.allSatisfy({ $0 >= 0 }) { _ = try? files.open() }
        return CheckpointBuffer.Sinks(files: files, position: position)
    }
}
