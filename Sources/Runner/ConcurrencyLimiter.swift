import Synchronization

/// An async counting semaphore: the plan-wide bound on items in flight across steps.
final class ConcurrencyLimiter: Sendable {
    private struct State {
        var available: Int
        var nextID: UInt64 = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state: Mutex<State>

    init(limit: Int) { state = Mutex(State(available: max(1, limit))) }

    /// Takes a permit, waiting for one if none is free. Throws `CancellationError` if cancelled while waiting.
    func acquire() async throws {
        let (acquired, id): (Bool, UInt64) = state.withLock { state in
            if state.available > 0 {
                state.available -= 1
                return (true, 0)
            }
            state.nextID += 1
            return (false, state.nextID)
        }
        if acquired { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let result: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.available > 0 {
                        state.available -= 1
                        return .success(())
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Returns a permit, handing it straight to the oldest waiter if there is one.
    func release() {
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        waiter?.resume()
    }
}
