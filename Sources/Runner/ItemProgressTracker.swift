import Foundation

/// The progress ticker's memory of each step's in-item progress: turns successive readings into a
/// smoothed rate, and decides when a reading is written to the checkpoint (a changed reading at most
/// once per `interval`; a cleared one at once). Pure: times come from the caller, so tests drive it
/// without a clock.
struct ItemProgressTracker {
    private struct Entry {
        var last: ItemProgress?
        var lastAt: Duration = .zero
        var persisted: ItemProgress?
        var persistedAt: Duration?
    }

    private var entries: [Entry]
    /// The least time between two checkpoint writes of a step's reading.
    let interval: Duration
    /// The smoothing time constant of the rate, in seconds.
    static let smoothing = 3.0

    init(steps: Int, interval: Duration) {
        entries = Array(repeating: Entry(), count: steps)
        self.interval = interval
    }

    /// Takes the combined reading of step `index` at `now`; returns it with its rate, and whether it
    /// must be written to the checkpoint now (nil there clears the stored reading).
    mutating func update(_ index: Int, _ reading: ItemProgress?, now: Duration) -> (
        progress: ItemProgress?, checkpoint: Bool
    ) {
        var entry = entries[index]
        var reading = reading
        if var current = reading {
            if let last = entry.last, last.unit == current.unit, last.items == current.items, current.done >= last.done
            {
                let seconds = (now - entry.lastAt).seconds
                if seconds > 0 {
                    let instant = Double(current.done - last.done) / seconds
                    // The first rate is the instant one; then an exponential average over ~3 s.
                    let weight = last.ratePerSecond == 0 ? 1 : 1 - exp(-seconds / Self.smoothing)
                    current.ratePerSecond = last.ratePerSecond + weight * (instant - last.ratePerSecond)
                } else {
                    current.ratePerSecond = last.ratePerSecond
                }
            }
            reading = current
            entry.last = current
            entry.lastAt = now
        } else {
            entry.last = nil
        }
        var write = false
        if !Self.sameCounts(reading, entry.persisted) {
            let due = entry.persistedAt.map { now - $0 >= interval } ?? true
            if reading == nil || due {
                write = true
                entry.persisted = reading
                entry.persistedAt = now
            }
        }
        entries[index] = entry
        return (reading, write)
    }

    /// Equal counts (the rate is not worth a write of its own).
    private static func sameCounts(_ a: ItemProgress?, _ b: ItemProgress?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?): return a.done == b.done && a.total == b.total && a.unit == b.unit && a.items == b.items
        default: return false
        }
    }
}
