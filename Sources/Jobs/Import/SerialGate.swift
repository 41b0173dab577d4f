import Synchronization

/// Lets one task at a time through, in arrival order.
///
/// The batched import holds it around each `importWallets` call: the core refuses a request whose
/// nonce is not above the last one it used on the credential (PreconditionFailed 7206), and a batch
/// takes long enough in the core that two in flight would keep refusing each other, each refusal
/// wasting the whole batch's work. One batch at a time in the core loses nothing: the core spreads a
/// batch's work over the cores itself, and reading, validating and writing of the other batches go on.
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` when no other holder is inside.
    func withPermit<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let enter = state.withLock { state -> Bool in
                if state.busy {
                    state.waiters.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if enter { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
