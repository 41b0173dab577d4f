import Synchronization

/// Progress reported by an action within the item it runs (rows of a file, pages of a listing), for a
/// step whose one item fans out internally over thousands of units. See
/// ``ActionContext/progress(done:total:unit:)``.
public struct ItemProgress: Sendable, Equatable {
    /// Units done so far.
    public var done: Int
    /// Units in all, when known.
    public var total: Int?
    /// What is counted ("rows", "wallets").
    public var unit: String
    /// Units per second over the last progress interval (0 until two readings are known).
    public var ratePerSecond: Double
    /// How many of the step's in-flight items this combines (their counts in `unit` are summed).
    public var items: Int

    /// Creates a reading.
    public init(done: Int, total: Int?, unit: String, ratePerSecond: Double = 0, items: Int = 1) {
        self.done = done
        self.total = total
        self.unit = unit
        self.ratePerSecond = ratePerSecond
        self.items = items
    }

    /// The readings of several in-flight items as one: those counting the unit of the first are summed
    /// (the total is known only when every summed one knows it); others are left out.
    static func combined(_ readings: [ItemProgress]) -> ItemProgress? {
        guard let first = readings.first else { return nil }
        var out = ItemProgress(done: 0, total: 0, unit: first.unit, items: 0)
        for reading in readings where reading.unit == first.unit {
            out.done += reading.done
            out.total = out.total.flatMap { sum in reading.total.map { sum + $0 } }
            out.items += 1
        }
        return out
    }
}

/// One worker's latest in-item progress report: the worker marks the item it runs, actions overwrite
/// the reading (one uncontended lock, no allocation), and the progress ticker reads it. A report from
/// an item that is no longer the worker's current one (a straggling child task) is ignored on read.
final class ItemProgressSlot: Sendable {
    private struct Reading {
        var serial: Int
        var progress: ItemProgress
    }

    /// The position of the item the worker runs now, or -1 between items.
    private let current = Atomic<Int>(-1)
    private let reading = Mutex<Reading?>(nil)

    /// The worker starts running the item at `serial` (its position in the step's input).
    func begin(_ serial: Int) { current.store(serial, ordering: .releasing) }

    /// The worker is between items.
    func end() { current.store(-1, ordering: .releasing) }

    func report(serial: Int, done: Int, total: Int?, unit: String) {
        reading.withLock { $0 = Reading(serial: serial, progress: ItemProgress(done: done, total: total, unit: unit)) }
    }

    /// The current item's latest report, if it made one.
    func read() -> ItemProgress? {
        let serial = current.load(ordering: .acquiring)
        guard serial >= 0 else { return nil }
        return reading.withLock { $0?.serial == serial ? $0?.progress : nil }
    }
}
