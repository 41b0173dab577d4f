import Synchronization

/// A bounded hand-off from a step's filler (one producer) to its workers (many consumers).
///
/// The fast paths take one lock and never allocate; a consumer suspends only when the buffer is empty,
/// the producer only when it is full. `close()` ends everything at once (a stop): waiting consumers get
/// nil, a waiting producer gets false, and the undelivered items are handed back.
final class StepFeed<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var head = 0
        var finished = false
        var closed = false
        var consumers: [CheckedContinuation<Element?, Never>] = []
        var producer: CheckedContinuation<Bool, Never>?
        var count: Int { buffer.count - head }

        mutating func pop() -> Element {
            let element = buffer[head]
            head += 1
            if head >= 1024 && head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return element
        }
    }

    private enum Fast {
        case element(Element, wakeProducer: CheckedContinuation<Bool, Never>?)
        case end
        case wait
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The next element, or nil once the feed is finished and drained, or closed.
    func take() async -> Element? {
        let fast: Fast = state.withLock { state in
            if state.closed { return .end }
            if state.count > 0 {
                let element = state.pop()
                var producer: CheckedContinuation<Bool, Never>?
                if state.count < capacity, let waiting = state.producer {
                    producer = waiting
                    state.producer = nil
                }
                return .element(element, wakeProducer: producer)
            }
            return state.finished ? .end : .wait
        }
        switch fast {
        case .element(let element, let producer):
            producer?.resume(returning: true)
            return element
        case .end:
            return nil
        case .wait:
            return await withCheckedContinuation { continuation in
                let immediate: Element?? = state.withLock { state in
                    if state.closed { return .some(nil) }
                    if state.count > 0 { return .some(state.pop()) }
                    if state.finished { return .some(nil) }
                    state.consumers.append(continuation)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
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

    /// Adds `elements`, handing them to waiting consumers first; waits while the buffer is full.
    func push(_ elements: [Element]) async -> PushOutcome {
        var handoffs: [(CheckedContinuation<Element?, Never>, Element)] = []
        let accepted: Bool = state.withLock { state in
            if state.closed { return false }
            var index = 0
            while index < elements.count, !state.consumers.isEmpty {
                handoffs.append((state.consumers.removeFirst(), elements[index]))
                index += 1
            }
            if index < elements.count { state.buffer.append(contentsOf: elements[index...]) }
            return true
        }
        for (consumer, element) in handoffs { consumer.resume(returning: element) }
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
        let waiting: [CheckedContinuation<Element?, Never>] = state.withLock { state in
            state.finished = true
            defer { state.consumers = [] }
            return state.consumers
        }
        for consumer in waiting { consumer.resume(returning: nil) }
    }

    /// Stops the feed now and returns the elements that were never taken.
    @discardableResult
    func close() -> [Element] {
        let (waiting, producer, left):
            ([CheckedContinuation<Element?, Never>], CheckedContinuation<Bool, Never>?, [Element]) =
                state.withLock { state in
                    state.closed = true
                    let left = Array(state.buffer[state.head...])
                    state.buffer = []
                    state.head = 0
                    defer {
                        state.consumers = []
                        state.producer = nil
                    }
                    return (state.consumers, state.producer, left)
                }
        for consumer in waiting { consumer.resume(returning: nil) }
        producer?.resume(returning: false)
        return left
    }
}
