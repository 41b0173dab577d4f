import KeyFormats
import OMSProtocol
import Runner

/// The import's streaming loop: reads the input in batches, keeps at most `parallel` batches between
/// reading and writing, settles each batch through the transport, and writes outputs in source order.
///
/// Memory does not grow with the input: the rows of at most `parallel` batches (their secrets in
/// `SecretBytes`, wiped when released) and the duplicate window of their keys' fingerprints.
struct ImportPipeline {
    /// Rows per batch.
    let batchSize: Int
    /// Batches between reading and writing (in flight, or settled and waiting for an earlier one).
    let parallel: Int
    let referencePrefix: String
    /// Per-user mode: rows need a subject.
    var requiresSubject = false
    let transport: ImportTransport
    /// Called after each batch is written, with the rows done so far (imported + rejected).
    let progress: @Sendable (_ rowsDone: Int) -> Void
    /// How many times a transient failure of a batch is tried before the run gives up on it.
    var maximumAttempts = 6
    /// The first backoff; doubled per attempt, at most 2 s.
    var backoff: Duration = .milliseconds(50)

    /// The rows written.
    struct Summary: Sendable, Equatable {
        var imported: Int
        var rejected: Int
    }

    /// Imports everything `source` yields, writing through `writer`.
    func run(source: ImportRowSource, writer: ImportOutputWriter) async throws -> Summary {
        var batcher = ImportBatcher(referencePrefix: referencePrefix, requiresSubject: requiresSubject)
        var formed: [Int: ImportBatch] = [:]
        var settled: [Int: [ImportRowOutcome]] = [:]
        var nextToWrite = 0
        var exhausted = false
        let transport = transport
        let attempts = maximumAttempts
        let backoff = backoff
        try await withThrowingTaskGroup(of: (Int, [ImportRowOutcome]).self) { group in
            var inFlight = 0
            while true {
                // Form batches while the window (formed, not yet written) has room.
                while !exhausted && batcher.nextIndex - nextToWrite < parallel {
                    let records = try await source.next(batchSize)
                    guard !records.isEmpty else {
                        exhausted = true
                        break
                    }
                    let batch = batcher.form(records)
                    formed[batch.index] = batch
                    inFlight += 1
                    group.addTask {
                        (
                            batch.index,
                            try await Self.settle(batch, transport: transport, attempts: attempts, backoff: backoff)
                        )
                    }
                }
                guard inFlight > 0, let (index, outcomes) = try await group.next() else { break }
                inFlight -= 1
                // Its keys leave the window: the core has settled them, later copies are its to refuse.
                if let batch = formed[index] { batcher.settled(batch) }
                settled[index] = outcomes
                while let outcomes = settled.removeValue(forKey: nextToWrite),
                    let batch = formed.removeValue(
                        forKey: nextToWrite)
                {
                    try writer.write(batch, outcomes)
                    nextToWrite += 1
                    progress(writer.imported + writer.rejected)
                }
            }
        }
        return Summary(imported: writer.imported, rejected: writer.rejected)
    }

    /// Sends the batch's keys and settles every row: transient failures of the batch or of items are
    /// tried again with backoff; a batch whose reply was lost is sent again whole (the core answers
    /// the keys it already has as already imported).
    static func settle(_ batch: ImportBatch, transport: ImportTransport, attempts: Int, backoff: Duration)
        async throws -> [ImportRowOutcome]
    {
        var outcomes: [ImportRowOutcome?] = batch.rows.map { row in row.reject.map { .rejected($0) } }
        var pending = batch.rows.indices.filter { batch.rows[$0].secret != nil }
        var attempt = 0
        while !pending.isEmpty {
            attempt += 1
            if attempt > 1 {
                let delay = min(backoff * (1 << min(attempt - 2, 10)), .seconds(2))
                try await Task.sleep(for: delay)
            }
            let items = pending.map {
                ImportRequestItem(
                    secret: batch.rows[$0].secret!, reference: batch.rows[$0].reference, subject: batch.rows[$0].subject
                )
            }
            let replies: [ImportItemReply]
            do {
                replies = try await StaleNonce.retrying { try await transport.send(items) }
            } catch let error as WaasError where isTransient(error) && attempt < attempts {
                continue
            } catch  where JobFailure.isInDoubt(error) && attempt < attempts {
                continue
            } catch {
                throw JobFailure.classify(error)
            }
            guard replies.count == items.count else {
                throw ActionError.permanent(
                    "the core answered \(replies.count) items for a batch of \(items.count) (batch \(batch.index + 1))")
            }
            var retry: [Int] = []
            for (index, reply) in zip(pending, replies) {
                if let outcome = outcome(of: reply, row: batch.rows[index], lastAttempt: attempt >= attempts) {
                    outcomes[index] = outcome
                } else {
                    retry.append(index)
                }
            }
            pending = retry
        }
        return outcomes.map { $0! }
    }

    /// A row's outcome from the core's reply; nil to send it again (a transient refusal).
    static func outcome(of reply: ImportItemReply, row: ImportRow, lastAttempt: Bool) -> ImportRowOutcome? {
        switch reply {
        case .imported(let wallet):
            return .imported(ImportedWallet(wallet))
        case .alreadyImported(let wallet):
            // The same address and reference: this import, done by an earlier run or an earlier send.
            if wallet.reference == row.reference { return .imported(ImportedWallet(wallet)) }
            return .rejected(
                ImportReject(
                    reason:
                        "duplicateKey: already imported as wallet \(wallet.id) (reference \(wallet.reference ?? "none"))",
                    errorClass: "duplicate"))
        case .failed(let error) where error.code == .addressAlreadyImported:
            return .rejected(
                ImportReject(
                    reason: "duplicateKey: the key's address is already a wallet outside this account",
                    errorClass: "duplicate"))
        case .failed(let error) where isTransient(error) && !lastAttempt:
            return nil
        case .failed(let error):
            return .rejected(ImportReject(reason: "\(error.code.name): \(error.message)", errorClass: "service"))
        }
    }

    /// 5xx and 429: the core was busy or failed before doing anything lasting.
    static func isTransient(_ error: WaasError) -> Bool {
        error.code.httpStatus >= 500 || error.code.httpStatus == 429
    }
}

extension ImportedWallet {
    init(_ wallet: Wallet) {
        self.init(
            id: wallet.id, type: wallet.walletType.rawValue, address: wallet.address,
            keyOrigin: wallet.keyOrigin.rawValue)
    }
}
