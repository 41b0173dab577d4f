import Dispatch
import OMSProtocol
import Synchronization

/// Runs one request's handler task on the libmicrohttpd worker thread that waits for its reply.
///
/// The worker thread starts the handler in a `Task` that prefers this executor
/// ([SE-0417](https://github.com/swiftlang/swift-evolution/blob/main/proposals/0417-task-executor-preference.md)),
/// then blocks in `waitForReply()`, running each job the task enqueues until the reply is stored. A handler
/// that does not suspend thus runs start to end on the worker thread, with no thread hop; one that awaits
/// other executors (an actor's serial queue, a timer) has its continuation brought back here. Blocking is
/// acceptable because libmicrohttpd's pool threads are its own, not Swift's cooperative threads.
///
/// The first reply stored wins: the handler's, or the 503 a hard stop stores when the grace period is over.
/// After that, jobs still coming for the task are handed to a Dispatch thread, and the task is cancelled.
final class WorkerExecutor: TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var response: WaasHTTPResponse?
        /// The worker thread is draining `jobs`; once false, jobs go to Dispatch.
        var pumping = true
        var task: Task<Void, Never>?
    }

    private enum Step {
        case run(UnownedJob)
        case done(WaasHTTPResponse, leftover: [UnownedJob])
        case none
    }

    private let state = Mutex(State())
    /// Signalled once per job enqueued and once when the reply is stored.
    private let wake = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = state.withLock { state in
            guard state.pumping else { return false }
            state.jobs.append(job)
            return true
        }
        if queued { wake.signal() } else { forward(job) }
    }

    private func forward(_ job: UnownedJob) {
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Starts `work` in a task on this executor.
    func start(_ work: @escaping @Sendable () async -> WaasHTTPResponse) {
        let task = Task(executorPreference: self) { _ = self.fulfil(await work()) }
        state.withLock { state in
            if state.response == nil { state.task = task }
        }
    }

    /// Stores the reply unless one is already there, and wakes the worker thread.
    @discardableResult
    func fulfil(_ response: WaasHTTPResponse) -> Bool {
        let task: Task<Void, Never>?? = state.withLock { state in
            guard state.response == nil else { return .none }
            state.response = response
            defer { state.task = nil }
            return .some(state.task)
        }
        guard let task else { return false }
        wake.signal()
        task?.cancel()
        return true
    }

    /// Runs the task's jobs on the calling thread (a libmicrohttpd worker, never a Swift concurrency
    /// thread) until a reply is stored, and returns it.
    func waitForReply() -> WaasHTTPResponse {
        while true {
            wake.wait()
            let step = state.withLock { state -> Step in
                if let response = state.response {
                    state.pumping = false
                    defer { state.jobs = [] }
                    return .done(response, leftover: state.jobs)
                }
                return state.jobs.isEmpty ? .none : .run(state.jobs.removeFirst())
            }
            switch step {
            case .run(let job):
                job.runSynchronously(on: asUnownedTaskExecutor())
            case .done(let response, let leftover):
                for job in leftover { forward(job) }
                return response
            case .none:
                continue
            }
        }
    }
}
