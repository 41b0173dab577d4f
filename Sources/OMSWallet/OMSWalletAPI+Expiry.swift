import Foundation
import Synchronization

extension OMSWalletAPI {
    /// Registers a callback for when the active session expires. It runs on the `MainActor`, once per
    /// session, at the session's `expiresAt` less the 30 s skew margin; the event holds a snapshot of the
    /// expired session. Keep the returned observation alive: `cancel()` (or releasing it) stops it, so
    /// the result is not discardable.
    public func addSessionExpiredObserver(
        _ handler: @escaping @MainActor @Sendable (SessionExpiredEvent) -> Void
    ) -> SessionExpiryObservation {
        let id = state.withLock { state in
            state.nextObserverId += 1
            state.observers[state.nextObserverId] = handler
            return state.nextObserverId
        }
        return SessionExpiryObservation { [weak self] in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
    }

    /// Starts a new session generation and a timer for its expiry (cancelling the previous one).
    func scheduleExpiry(_ state: inout State) {
        state.generation &+= 1
        state.expiryTask?.cancel()
        state.expiryTask = nil
        guard let active = state.active else { return }
        let generation = state.generation
        let deadline = effectiveExpiry(active.expiresAt)
        let clock = configuration.clock
        state.expiryTask = Task { [weak self] in
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            self?.sessionDidExpire(generation: generation, at: deadline)
        }
    }

    /// Notifies the observers once, if the session that timer was for is still the active one.
    private func sessionDidExpire(generation: UInt64, at deadline: Date) {
        let notice: (SessionExpiredEvent, [Int])? = state.withLock { state in
            guard state.generation == generation, let active = state.active else { return nil }
            state.expiryTask = nil
            return (SessionExpiredEvent(session: active.state, expiredAt: deadline), state.observers.keys.sorted())
        }
        guard let (event, ids) = notice else { return }
        Task { @MainActor [weak self] in
            for id in ids {
                // An observer cancelled since the expiry is not called.
                guard let handler = self?.state.withLock({ $0.observers[id] }) else { continue }
                handler(event)
            }
        }
    }
}
