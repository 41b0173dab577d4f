import Synchronization

/// Lets one task at a time through per key, in arrival order; different keys run concurrently.
///
/// The per-user import holds it per subject around each `importWallets` call: a subject's credential
/// has its own nonce sequence, so two requests of one subject in flight would refuse each other
/// (PreconditionFailed 7206), while different subjects do not interfere. A key's entry exists only
/// while a task holds or waits for it, so memory follows the requests in flight, not the subjects seen.
final class KeyedSerialGate: Sendable {
    private let state = Mutex([String: [CheckedContinuation<Void, Never>]]())

    /// Runs `body` when no other holder of `key` is inside.
    func withPermit<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        await acquire(key)
        defer { release(key) }
        return try await body()
    }

    /// Keys held or waited for (tests: the gate forgets idle keys).
    var activeKeys: Int { state.withLock { $0.count } }

    private func acquire(_ key: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // An entry means the key is held; its array holds the waiters.
            let enter = state.withLock { state -> Bool in
                if state[key] != nil {
                    state[key]!.append(continuation)
                    return false
                }
                state[key] = []
                return true
            }
            if enter { continuation.resume() }
        }
    }

    private func release(_ key: String) {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard var waiters = state[key], !waiters.isEmpty else {
                state[key] = nil
                return nil
            }
            let first = waiters.removeFirst()
            state[key] = waiters
            return first
        }
        next?.resume()
    }
}
