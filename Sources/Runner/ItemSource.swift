/// Pulls the items of one step, one at a time. Used by a single task; need not be `Sendable`.
public protocol ItemIterator: AnyObject {
    /// The next item, or nil at the end of the input.
    func next() async throws -> WorkItem?
    /// Appends up to `limit` items to `items`, fewer only at the end of the input: one call per batch
    /// instead of one async call per item. The default calls ``next()``.
    ///
    /// Contract: a call that appends fewer than `limit` items ends the input; the engine reads no more
    /// after it, so a stop that comes then still finds the step's input read to its end. An iterator with
    /// a read-ahead (a phrase row's accounts, a buffered page) must keep filling the batch from its next
    /// records, never return what it holds early.
    func next(upTo limit: Int, into items: inout [WorkItem]) async throws
    /// The number of items, once the iterator knows it and its source did not (a list an earlier step
    /// made, known at the first read): the step's progress total. Default nil.
    var count: Int? { get }
    /// Reads past up to `limit` items, appending only their keys (fewer only at the end of the input): for
    /// the items a resumed run finished below its watermark, which it needs only to count and to check
    /// against the keys it recorded. The default reads them whole; a source whose items are costly to make
    /// (a key validated per row) skips that work.
    func skip(upTo limit: Int, keys: inout [String]) async throws
}

extension ItemIterator {
    public var count: Int? { nil }

    public func skip(upTo limit: Int, keys: inout [String]) async throws {
        var items: [WorkItem] = []
        try await next(upTo: limit, into: &items)
        keys.append(contentsOf: items.map(\.key))
    }

    public func next(upTo limit: Int, into items: inout [WorkItem]) async throws {
        var added = 0
        while added < limit, let item = try await next() {
            items.append(item)
            added += 1
        }
    }
}

/// An iterator whose reads never suspend (a file reader): a batch is read in one synchronous loop, with
/// no async call per item.
public protocol SynchronousItemIterator: ItemIterator {
    /// The next item, or nil at the end of the input.
    func nextItem() throws -> WorkItem?
}

extension SynchronousItemIterator {
    public func next() async throws -> WorkItem? { try nextItem() }

    public func next(upTo limit: Int, into items: inout [WorkItem]) throws {
        var added = 0
        while added < limit, let item = try nextItem() {
            items.append(item)
            added += 1
        }
    }
}

/// Where a step's items come from: a factory of iterators, so the input is streamed and never held
/// in memory whole, and can be read again from the start when a run resumes.
public struct ItemSource: Sendable {
    private let make: @Sendable (StepOutputs) -> any ItemIterator
    /// The number of items when known in advance (for progress display), else nil.
    public let count: Int?

    /// A source from an iterator factory.
    public init(count: Int?, makeIterator: @escaping @Sendable () -> any ItemIterator) {
        self.count = count
        self.make = { _ in makeIterator() }
    }

    /// A source made when its step starts, from the outputs of the steps finished before it (a step
    /// over the list an earlier step selected): the items exist only once those steps have run.
    public init(count: Int? = nil, afterSteps makeIterator: @escaping @Sendable (StepOutputs) -> any ItemIterator) {
        self.count = count
        self.make = makeIterator
    }

    /// A fresh iterator from the first item.
    public func makeIterator() -> any ItemIterator { make(StepOutputs()) }

    /// A fresh iterator from the first item, given the outputs of the steps finished so far.
    public func makeIterator(after outputs: StepOutputs) -> any ItemIterator { make(outputs) }

    /// The key of the one item of a step without `for_each`.
    public static let singleKey = "-"

    /// One item with key ``singleKey`` and no fields: a step without `for_each`.
    public static var single: ItemSource { items([WorkItem(key: singleKey)]) }

    /// A fixed list (for small inputs and tests).
    public static func items(_ items: [WorkItem]) -> ItemSource {
        ItemSource(count: items.count) { ArrayIterator(items) }
    }

    /// `count` items made on demand by `make(index)`: flat memory however large `count` is.
    public static func generated(count: Int, _ make: @escaping @Sendable (Int) -> WorkItem) -> ItemSource {
        ItemSource(count: count) { GeneratedIterator(count: count, make: make) }
    }

    /// The elements of an async sequence, made anew for every run.
    public static func sequence<S: AsyncSequence & Sendable>(
        count: Int? = nil, _ makeSequence: @escaping @Sendable () -> S
    )
        -> ItemSource where S.Element == WorkItem
    {
        ItemSource(count: count) { AsyncSequenceIterator(makeSequence().makeAsyncIterator()) }
    }
}

/// The outputs of the single-item steps (steps without `for_each`) that finished, by step id: what a
/// later step's items and parameters may be made from (`steps.<id>.outputs.<name>` in a playbook).
public struct StepOutputs: Sendable, Equatable {
    /// Outputs by step id, then output name (secret outputs are never here).
    public var byStep: [String: [String: String]]

    /// Outputs by step id.
    public init(_ byStep: [String: [String: String]] = [:]) { self.byStep = byStep }

    /// The outputs of `step`, nil when it has not finished (or is not a single-item step).
    public subscript(step step: String) -> [String: String]? { byStep[step] }
}

private final class ArrayIterator: ItemIterator {
    private let items: [WorkItem]
    private var index = 0
    init(_ items: [WorkItem]) { self.items = items }
    func next() async throws -> WorkItem? {
        guard index < items.count else { return nil }
        defer { index += 1 }
        return items[index]
    }
}

private final class GeneratedIterator: ItemIterator {
    private let count: Int
    private let make: @Sendable (Int) -> WorkItem
    private var index = 0
    init(count: Int, make: @escaping @Sendable (Int) -> WorkItem) {
        self.count = count
        self.make = make
    }
    func next() async throws -> WorkItem? {
        guard index < count else { return nil }
        defer { index += 1 }
        return make(index)
    }
}

private final class AsyncSequenceIterator<Base: AsyncIteratorProtocol>: ItemIterator where Base.Element == WorkItem {
    private var base: Base
    init(_ base: Base) { self.base = base }
    func next() async throws -> WorkItem? { try await base.next() }
}
