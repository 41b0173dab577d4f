/// Outcomes waiting for the next flush, and per step what its watermark may be: the engine keeps it
/// under one lock so an outcome and the watermark it allows are always taken together.
///
/// A step's watermark is the number of leading items (in input order) that are all settled. The filler
/// registers every item it reads: items it hands to workers stay `open` until their outcome is buffered;
/// items it found settled in the checkpoint never open. So the watermark is the lowest open position,
/// or, with none open, everything read so far. Memory is bounded by the open items (the feed window plus
/// the read batch plus the workers), not by the run.
struct CheckpointBuffer {
    struct Tracker {
        /// The step's id (the checkpoint's name for it).
        var step: String
        /// Items read so far, and the hash of their keys in order.
        var read = 0
        var readHash = KeysHash.initial
        /// Handed out without an outcome yet: position to the hash of the keys before it.
        var open: [Int: UInt64] = [:]

        var mark: RunHandle.Mark {
            guard let lowest = open.keys.min() else { return RunHandle.Mark(watermark: read, keysHash: readHash) }
            return RunHandle.Mark(watermark: lowest, keysHash: open[lowest] ?? 0)
        }
    }

    var updates: [RunHandle.Update] = []
    /// By step index (an array: no string hashing per outcome).
    var trackers: [Tracker?]

    /// The flush batch: the buffer is allocated at this size once per flush (growing it by doubling at
    /// every flush fragmented the heap and made the peak RSS creep up over a long run).
    let batch: Int

    init(stepCount: Int, batch: Int) {
        trackers = Array(repeating: nil, count: stepCount)
        self.batch = batch
        updates.reserveCapacity(batch)
    }

    /// Buffers an update of the step at `stepIndex`; an outcome closes its item.
    mutating func append(_ update: RunHandle.Update, stepIndex: Int, settles: Bool) {
        updates.append(update)
        if settles { trackers[stepIndex]?.open.removeValue(forKey: update.index) }
    }

    /// The buffered updates and every step's watermark, leaving the buffer empty.
    mutating func take() -> (updates: [RunHandle.Update], marks: [String: RunHandle.Mark]) {
        defer {
            updates = []
            updates.reserveCapacity(batch)
        }
        var marks: [String: RunHandle.Mark] = [:]
        for case let tracker? in trackers { marks[tracker.step] = tracker.mark }
        return (updates, marks)
    }
}

/// FNV-1a over item keys in order, with a separator so ["ab", "c"] and ["a", "bc"] differ.
enum KeysHash {
    static let initial: UInt64 = 0xcbf2_9ce4_8422_2325

    static func adding(_ key: String, to hash: UInt64) -> UInt64 {
        var hash = hash
        for byte in key.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return (hash ^ 0xff) &* 0x100_0000_01b3
    }
}
