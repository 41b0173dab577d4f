import Synchronization

/// A bounded hand-off from a step's filler (one producer) to its workers (many consumers).
///
/// The fast paths take one lock and never allocate; a consumer suspends only when the buffer is empty,
/// the producer only when it is full. `close()` ends everything at once (a stop): waiting consumers get
/// nothing, a waiting producer gets false, and the undelivered items are handed back.
final class StepFeed<Element: Sendable>: Sendable {
    private struct State {
        /// Elements are moved in and out (nil once taken): no copy, no reference-count traffic per element.
        var buffer: [Element?] = []
        var head = 0
        var finished = false
        var closed = false
        /// Consumers waiting for elements: woken (not handed an element) when some arrive, they take from
        /// the buffer like the others, so a suspended consumer never holds an element it cannot run.
        var consumers: [CheckedContinuation<Void, Never>] = []
        var producer: CheckedContinuation<Bool, Never>?
        /// Chunks handed out so far (``take(chunkOf:into:)``): the next chunk's number.
        var chunks = 0
        var count: Int { buffer.count - head }

        mutating func pop() -> Element {
            let element = buffer[head].take()!
            head += 1
            if head >= 1024 && head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return element
        }
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The next element, or nil once the feed is finished and drained, or closed.
    func take() async -> Element? {
        var out: [Element] = []
        guard await take(upTo: 1, share: 1, into: &out) else { return nil }
        return out.first
    }

    /// Takes up to `limit` elements into `out` (replacing its contents), and at most an even share of
    /// the buffer among `share` consumers (at least one), so a worker taking a batch never leaves the
    /// others idle. Waits while the buffer is empty; false once the feed is finished and drained, or closed.
    func take(upTo limit: Int, share: Int, into out: inout [Element]) async -> Bool {
        await take(upTo: limit, share: share, into: &out) { $0 }
    }

    /// ``take(upTo:share:into:)`` into optionals, so that the consumer can move each element out
    /// (`out[i].take()`) instead of copying it.
    func take(upTo limit: Int, share: Int, into out: inout [Element?]) async -> Bool {
        await take(upTo: limit, share: share, into: &out) { $0 }
    }

    private func take<Slot>(upTo limit: Int, share: Int, into out: inout [Slot], _ wrap: (Element) -> Slot) async
        -> Bool
    {
        out.removeAll(keepingCapacity: true)
        while true {
            let (more, producer): (Bool?, CheckedContinuation<Bool, Never>?) = state.withLock { state in
                if state.closed { return (false, nil) }
                guard state.count > 0 else { return (state.finished ? false : nil, nil) }
                let count = min(limit, max(1, state.count / max(1, share)))
                for _ in 0..<count { out.append(wrap(state.pop())) }
                var producer: CheckedContinuation<Bool, Never>?
                if state.count < capacity, let waiting = state.producer {
                    producer = waiting
                    state.producer = nil
                }
                return (true, producer)
            }
            producer?.resume(returning: true)
            if let more { return more }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if state.closed || state.finished || state.count > 0 { return true }
                    state.consumers.append(continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// Takes the next chunk into `out` (replacing its contents): `size` elements, fewer only when the feed
    /// is finished with fewer left. Chunks are taken whole under one lock, so they are consecutive runs of
    /// the input, taken in input order. Waits for a full chunk; false once the feed is finished and
    /// drained, or closed. The feed's capacity must be at least `size`. Returns the chunk's number (0, 1,
    /// ... in input order), nil at the end.
    func take(chunkOf size: Int, into out: inout [Element]) async -> Int? {
        out.removeAll(keepingCapacity: true)
        while true {
            let (more, producer): (Int??, CheckedContinuation<Bool, Never>?) = state.withLock { state in
                if state.closed { return (.some(nil), nil) }
                guard state.count >= size || (state.finished && state.count > 0) else {
                    return (state.finished ? .some(nil) : nil, nil)
                }
                for _ in 0..<min(size, state.count) { out.append(state.pop()) }
                let number = state.chunks
                state.chunks += 1
                var producer: CheckedContinuation<Bool, Never>?
                if state.count < capacity, let waiting = state.producer {
                    producer = waiting
                    state.producer = nil
                }
                return (.some(number), producer)
            }
            producer?.resume(returning: true)
            if let more { return more }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if state.closed || state.finished || state.count >= size { return true }
                    state.consumers.append(continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// What became of a pushed batch.
    enum PushOutcome: Equatable {
        /// Delivered (handed out or buffered), and there is room for more.
        case accepted
        /// The feed was already closed: none of the batch was delivered.
        case rejected
        /// Delivered, then the feed closed while waiting for room: some elements may have been taken and
        /// run; `close()` returned the ones never taken, so the batch must not be withdrawn as a whole.
        case closedAfterAccepting
    }

    /// Adds `elements` and wakes waiting consumers; waits while the buffer is full.
    func push(_ elements: [Element]) async -> PushOutcome {
        var slots = elements.map { Optional($0) }
        return await push(moving: &slots)
    }

    /// ``push(_:)`` that moves the elements (all non-nil) out of `elements`: left empty or nil when
    /// delivered, untouched when rejected. Into a drained buffer the batch is handed over whole.
    func push(moving elements: inout [Element?]) async -> PushOutcome {
        let (accepted, waiting): (Bool, [CheckedContinuation<Void, Never>]) = state.withLock { state in
            if state.closed { return (false, []) }
            if state.count == 0 {
                // Every buffered slot was taken (nil): swap the arrays, no element is touched.
                swap(&state.buffer, &elements)
                state.head = 0
            } else {
                state.buffer.reserveCapacity(state.buffer.count + elements.count)
                for index in elements.indices where elements[index] != nil {
                    state.buffer.append(elements[index].take())
                }
            }
            defer { state.consumers = [] }
            return (true, state.consumers)
        }
        for consumer in waiting { consumer.resume() }
        guard accepted else { return .rejected }
        let room = await withCheckedContinuation { continuation in
            let immediate: Bool? = state.withLock { state in
                if state.closed { return false }
                if state.count < capacity { return true }
                state.producer = continuation
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        return room ? .accepted : .closedAfterAccepting
    }

    /// No more elements will come: consumers drain the buffer, then get nil.
    func finish() {
        let waiting: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.finished = true
            defer { state.consumers = [] }
            return state.consumers
        }
        for consumer in waiting { consumer.resume() }
    }

    /// Stops the feed now and returns the elements that were never taken.
    @discardableResult
    func close() -> [Element] {
        let (waiting, producer, left):
            ([CheckedContinuation<Void, Never>], CheckedContinuation<Bool, Never>?, [Element]) =
                state.withLock { state in
                    state.closed = true
                    let left = state.buffer[state.head...].compactMap { $0 }
                    state.buffer = []
                    state.head = 0
                    defer {
                        state.consumers = []
                        state.producer = nil
                    }
                    return (state.consumers, state.producer, left)
                }
        for consumer in waiting { consumer.resume() }
        producer?.resume(returning: false)
        return left
    }
}
