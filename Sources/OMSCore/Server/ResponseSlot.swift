import Dispatch
import OMSProtocol
import Synchronization

/// Hands one reply from the handler's task to the libmicrohttpd worker thread that waits for it.
///
/// The first reply stored wins: the handler's, or the 503 a hard stop puts in when the grace period
/// is over (the handler's task is then cancelled and its late reply dropped).
final class ResponseSlot: Sendable {
    private struct State {
        var response: WaasHTTPResponse?
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    /// Stores the reply unless one is already there, and wakes the waiting thread.
    @discardableResult
    func fulfil(_ response: WaasHTTPResponse) -> Bool {
        let task: Task<Void, Never>?? = state.withLock { state in
            guard state.response == nil else { return .none }
            state.response = response
            defer { state.task = nil }
            return .some(state.task)
        }
        guard let task else { return false }
        ready.signal()
        task?.cancel()
        return true
    }

    /// Remembers the task computing the reply, so that a hard stop can cancel it.
    func attach(_ task: Task<Void, Never>) {
        state.withLock { state in
            if state.response == nil { state.task = task }
        }
    }

    /// Blocks the calling thread (a libmicrohttpd worker, never a Swift concurrency thread) until a reply
    /// is stored.
    func wait() -> WaasHTTPResponse {
        ready.wait()
        return state.withLock { $0.response! }
    }
}
