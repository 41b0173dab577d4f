/// Outcomes waiting for the next flush, and per step what its watermark may be: the engine keeps it
/// under one lock so an outcome and the watermark it allows are always taken together.
///
/// A step's watermark is the number of leading items (in input order) that are all finished. The filler
/// registers every item it reads: items it hands to workers stay `open` until their outcome is buffered;
/// items it found finished in the checkpoint never open. So the watermark is the lowest open position,
/// or, with none open, everything read so far. Memory is bounded by the open items (the feed window plus
/// the read batch plus the workers), not by the run.
struct CheckpointBuffer {
    /// A success that needs a row only if the step's watermark has not passed it at the flush:
    /// succeeded, no stored outputs, not side-effecting, no earlier row.
    struct Covered {
        var index: Int
        var key: String
        var attempts: Int
        /// When a flush first left it above the watermark (nil: not yet).
        var carriedSince: Duration?
        /// The outputs to store should it get a row (a chunk step's success: its sinks' rows come from
        /// it), made into JSON only then: most never need a row.
        var outputs: [String: String] = [:]
    }

    /// A chunk step's sink files, the position up to which their rows are written, and the rows of the
    /// items finished above it, by position (one entry per sink, empty for none).
    struct Sinks {
        var files: StepSinkFiles
        var position: Int
        var rows: [Int: [[UInt8]]] = [:]
    }

    /// Rows to append to a step's sinks, and the position they bring the sinks to.
    struct SinkBatch {
        var step: String
        var files: StepSinkFiles
        var bytes: [[UInt8]]
        var position: Int
    }

    struct Tracker {
        /// The step's id (the checkpoint's name for it).
        var step: String
        /// Items read so far, and the hash of their keys in order.
        var read = 0
        var readHash = KeysHash.initial
        /// Handed out without an outcome yet, with the hash of the keys before each.
        var open = OpenPositions()
        /// Buffered successes without a row of their own (see ``Covered``).
        var covered: [Covered] = []
        /// Whether a covered success above the watermark waits `carry` for it before getting a row. A
        /// chunk step's do not: each flush rows them at once, so a resume never sends a finished item again.
        var carriesCovered = true
        /// A chunk step's output sinks, and the position last handed to a flush.
        var sinks: Sinks?
        var sinksCommitted = 0

        var mark: RunHandle.Mark {
            guard let lowest = open.lowest else { return RunHandle.Mark(watermark: read, keysHash: readHash) }
            return RunHandle.Mark(watermark: lowest.position, keysHash: lowest.hash)
        }
    }

    var updates: [RunHandle.Update] = []
    /// By step index (an array: no string hashing per outcome).
    var trackers: [Tracker?]
    /// Outcomes buffered (updates and covered successes): the flush trigger.
    private(set) var count = 0

    /// The flush batch: the buffer is allocated at this size once per flush (growing it by doubling at
    /// every flush fragmented the heap and made the peak RSS creep up over a long run).
    let batch: Int

    init(stepCount: Int, batch: Int) {
        trackers = Array(repeating: nil, count: stepCount)
        self.batch = batch
        updates.reserveCapacity(batch)
    }

    /// Buffers an update of the step at `stepIndex`; an outcome closes its item.
    mutating func append(_ update: RunHandle.Update, stepIndex: Int, closesItem: Bool, sinkRows: [[UInt8]]? = nil) {
        count += 1
        if let sinkRows { trackers[stepIndex]?.sinks?.rows[update.index] = sinkRows }
        if closesItem { trackers[stepIndex]?.open.close(update.index) }
        if update.coveredByWatermark && closesItem && trackers[stepIndex] != nil {
            trackers[stepIndex]?.covered.append(
                Covered(index: update.index, key: update.key, attempts: update.attempts, outputs: update.coveredOutputs)
            )
        } else {
            updates.append(update)
        }
    }

    /// Buffers a success of the step at `stepIndex` that needs no row below the watermark, closing its item.
    mutating func recordCovered(_ outcome: Covered, stepIndex: Int) {
        guard trackers[stepIndex] != nil else { return }
        count += 1
        trackers[stepIndex]!.open.close(outcome.index)
        trackers[stepIndex]!.covered.append(outcome)
    }

    /// The rows to write and every step's watermark, leaving the buffer empty.
    ///
    /// A covered success below its step's watermark needs no row. One above it finished out of order
    /// (workers run items from different places of the input, and a flush can come while a worker is
    /// in the middle of its batch): it is carried until it has waited `carry` (by then the watermark
    /// has almost always passed it) and gets a row only if it is still above then, or at once when
    /// `final` (the step or run ends). So a stuck item pins the watermark, not the others.
    mutating func take(now: Duration, carry: Duration, final: Bool = false) -> (
        updates: [RunHandle.Update], marks: [String: RunHandle.Mark], sinks: [SinkBatch]
    ) {
        var rows = updates
        updates = []
        updates.reserveCapacity(batch)
        count = 0
        var marks: [String: RunHandle.Mark] = [:]
        var sinkBatches: [SinkBatch] = []
        for index in trackers.indices {
            guard trackers[index] != nil else { continue }
            // Taken out while it is changed: a copy left anywhere would make every flush copy its rows.
            let takenSinks = trackers[index]!.sinks.take()
            let tracker = trackers[index]!
            let mark = tracker.mark
            marks[tracker.step] = mark
            if var sinks = takenSinks {
                var bytes = Array(repeating: [UInt8](), count: sinks.files.sinks.count)
                func add(_ itemRows: [[UInt8]]) {
                    for (sink, row) in itemRows.enumerated() { bytes[sink].append(contentsOf: row) }
                }
                // Items retried below the sinks' position (`walletops retry`): appended first, in input order.
                let retried = sinks.rows.keys.filter { $0 < sinks.position }.sorted()
                for position in retried { add(sinks.rows.removeValue(forKey: position)!) }
                if mark.watermark > sinks.position {
                    for position in sinks.position..<mark.watermark {
                        if let itemRows = sinks.rows.removeValue(forKey: position) { add(itemRows) }
                    }
                    sinks.position = mark.watermark
                }
                if !retried.isEmpty || mark.watermark == sinks.position && mark.watermark > tracker.sinksCommitted {
                    sinkBatches.append(
                        SinkBatch(step: tracker.step, files: sinks.files, bytes: bytes, position: sinks.position))
                    trackers[index]!.sinksCommitted = sinks.position
                }
                trackers[index]!.sinks = sinks
            }
            var carried: [Covered] = []
            for outcome in tracker.covered where outcome.index >= mark.watermark {
                if final || !tracker.carriesCovered || outcome.carriedSince.map({ now - $0 >= carry }) == true {
                    rows.append(
                        RunHandle.Update(
                            step: tracker.step, key: outcome.key, index: outcome.index, state: .succeeded,
                            attempts: outcome.attempts, errorClass: nil, message: nil,
                            resultJSON: outcome.outputs.isEmpty ? nil : JSONText.object(outcome.outputs),
                            idempotencyKey: nil))
                } else {
                    var outcome = outcome
                    if outcome.carriedSince == nil { outcome.carriedSince = now }
                    carried.append(outcome)
                }
            }
            trackers[index]!.covered.removeAll(keepingCapacity: true)
            trackers[index]!.covered.append(contentsOf: carried)
            count += carried.count
        }
        return (rows, marks, sinkBatches)
    }
}

/// FNV-1a over item keys in order, with a separator so ["ab", "c"] and ["a", "bc"] differ.
enum KeysHash {
    static let initial: UInt64 = 0xcbf2_9ce4_8422_2325

    static func adding(_ key: String, to hash: UInt64) -> UInt64 {
        // Over the contiguous UTF-8 (always available for native strings): no per-byte iterator.
        let folded =
            key.utf8.withContiguousStorageIfAvailable { fold($0, into: hash) } ?? fold(key.utf8, into: hash)
        return (folded ^ 0xff) &* 0x100_0000_01b3
    }

    private static func fold(_ bytes: some Sequence<UInt8>, into hash: UInt64) -> UInt64 {
        var hash = hash
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}
