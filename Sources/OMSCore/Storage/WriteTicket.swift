import Synchronization

/// The result of a write queued with ``CoreStore/submit(_:)``: resolved once the group commit holding it
/// commits (or fails), awaited whenever the submitter needs it (any number of times).
final class WriteTicket<T: Sendable>: Sendable {
    private enum State {
        case pending([CheckedContinuation<T, any Error>])
        case resolved(Result<T, any Error>)
    }

    private let state = Mutex(State.pending([]))

    /// Resolves the ticket; a second call is ignored.
    func resolve(_ result: Result<T, any Error>) {
        let waiting = state.withLock { state -> [CheckedContinuation<T, any Error>] in
            guard case .pending(let continuations) = state else { return [] }
            state = .resolved(result)
            return continuations
        }
        for continuation in waiting { continuation.resume(with: result) }
    }

    /// The write's result once it committed; its error if it failed or its commit did.
    func value() async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let resolved = state.withLock { state -> Result<T, any Error>? in
                switch state {
                case .resolved(let result): return result
                case .pending(var continuations):
                    continuations.append(continuation)
                    state = .pending(continuations)
                    return nil
                }
            }
            if let resolved { continuation.resume(with: resolved) }
        }
    }
}
