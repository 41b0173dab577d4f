internal import CMicroHTTPD
import Dispatch
import Foundation
import OMSProtocol
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Serves any `WaasRequestHandler` over HTTP with libmicrohttpd: `POST /v1/Waas/<Method>` and
/// `POST /v1/WaasPublic/<Method>` go to the handler with their headers and exact body bytes,
/// `GET /.well-known/jwks.json` and `GET /.well-known/openid-configuration` to a `WellKnownProvider`;
/// anything else is answered with an OMS error body (404, 405, 413).
///
/// libmicrohttpd runs its own pool of worker threads (epoll where available); see `HTTPServerEngine` for
/// how they wait on the async handlers. Start with `start(handler:wellKnown:configuration:)`, stop with
/// `stop(grace:)` or `runUntilSignalled(_:grace:)`.
/// ([libmicrohttpd manual](https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html))
public final class WaasHTTPServer: Sendable {
    /// The configuration it was started with (with the requested, not the bound, port).
    public let configuration: Configuration
    /// The TCP port it listens on; the one picked by the system when the configuration asked for 0.
    public let port: Int

    let engine: HTTPServerEngine

    /// The daemon pointer, shared with the stop task.
    /// @unchecked: libmicrohttpd's quiesce and stop calls are made once each, under `lifecycle`'s order.
    struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private struct Lifecycle {
        var daemon: Daemon?
        var stopTask: Task<Void, Never>?
        var stopped = false
        var hurry = false
        var draining = false
        /// The listen socket `MHD_quiesce_daemon` handed back: shut down at once, closed once the daemon's
        /// threads are joined.
        var quiescedSocket: Int32 = -1
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let lifecycle: Mutex<Lifecycle>

    private init(configuration: Configuration, port: Int, engine: HTTPServerEngine, daemon: Daemon) {
        self.configuration = configuration
        self.port = port
        self.engine = engine
        lifecycle = Mutex(Lifecycle(daemon: daemon))
    }

    /// Binds the address and starts serving.
    ///
    /// - Parameters:
    ///   - handler: answers the protocol's requests.
    ///   - wellKnown: answers `GET /.well-known/...`; without one those paths are 404.
    ///   - configuration: address, pool size and limits.
    /// - Throws: `WaasHTTPServerError` when a value is out of range, the address cannot be bound, or
    ///   libmicrohttpd does not start.
    public static func start(
        handler: any WaasRequestHandler, wellKnown: (any WellKnownProvider)? = nil,
        configuration: Configuration = Configuration()
    ) throws(WaasHTTPServerError) -> WaasHTTPServer {
        try configuration.validate()
        let socket = try ListenSocket(
            host: configuration.host, port: configuration.port, backlog: configuration.listenBacklog)
        let engine = HTTPServerEngine(
            handler: handler, wellKnown: wellKnown, maxBodyBytes: configuration.maxBodyBytes)
        guard let daemon = startDaemon(configuration, socket: socket.descriptor, engine: engine) else {
            close(socket.descriptor)
            throw WaasHTTPServerError(
                .startFailed, "libmicrohttpd did not start on \(configuration.host):\(socket.port)")
        }
        return WaasHTTPServer(configuration: configuration, port: socket.port, engine: engine, daemon: daemon)
    }

    private static func startDaemon(
        _ configuration: Configuration, socket: Int32, engine: HTTPServerEngine
    ) -> Daemon? {
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_ITC.rawValue
        if MHD_is_feature_supported(.FEATURE_EPOLL) == .YES {
            flags |= MHD_USE_EPOLL.rawValue
        } else if MHD_is_feature_supported(.FEATURE_POLL) == .YES {
            flags |= MHD_USE_POLL.rawValue
        }
        let engineCls = Unmanaged.passUnretained(engine).toOpaque()
        let completed = unsafeBitCast(MHDCallbacks.completed, to: Int.self)
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(socket), ptr_value: nil),
            MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threadPoolSize, ptr_value: nil),
            MHD_OptionItem(
                option: .CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryBytes, ptr_value: nil),
            MHD_OptionItem(
                option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.maxConnections, ptr_value: nil),
            MHD_OptionItem(
                option: .PER_IP_CONNECTION_LIMIT, value: configuration.maxConnectionsPerClient, ptr_value: nil),
            MHD_OptionItem(option: .NOTIFY_COMPLETED, value: completed, ptr_value: engineCls),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
        // MHD_start_daemon is variadic; its va_list form takes the options as one MHD_OPTION_ARRAY.
        let pointer = options.withUnsafeMutableBufferPointer { items in
            withVaList([Int32(MHD_OPTION.ARRAY.rawValue), items.baseAddress!, Int32(MHD_OPTION.END.rawValue)]) {
                MHD_start_daemon_va(flags, 0, nil, nil, MHDCallbacks.access, engineCls, $0)
            }
        }
        return pointer.map(Daemon.init(pointer:))
    }

    deinit {
        // Not stopped through `stop(grace:)`: stop now, answering any running handler with 503.
        guard let daemon = lifecycle.withLock({ $0.daemon }) else { return }
        engine.abandonPending()
        MHD_stop_daemon(daemon.pointer)
    }

    /// The `http://host:port` root to give `HTTPTransport`.
    public var baseURL: URL {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return URL(string: "http://\(host):\(port)")!
    }

    /// Stops gracefully: refuses new connections at once, lets requests in flight finish for up to
    /// `grace`, answers those still running with 503, then closes every connection and joins the threads.
    /// Calling it again, or concurrently, waits for the same stop.
    public func stop(grace: Duration = .seconds(10)) async {
        let task = lifecycle.withLock { state -> Task<Void, Never> in
            if let running = state.stopTask { return running }
            let daemon = state.daemon
            // Refuse new connections now, before any task is scheduled: a busy cooperative pool must not
            // delay the moment the server stops accepting.
            if let daemon { state.quiescedSocket = quiesce(daemon) }
            state.draining = true
            let task = Task { await self.performStop(daemon, grace: grace) }
            state.stopTask = task
            return task
        }
        await task.value
    }

    /// Whether a stop has begun: new connections are refused from then on.
    public var isDraining: Bool { lifecycle.withLock { $0.draining } }

    /// Takes the listen socket out of the daemon and shuts it down; returns it (or -1) to close later.
    private func quiesce(_ daemon: Daemon) -> Int32 {
        // Shutting the listen socket down makes new connections fail at once instead of waiting in the
        // backlog. Not closed yet: the daemon's epoll threads may still be removing it from their epoll
        // sets, and libmicrohttpd aborts the process when that finds the descriptor closed ("Failed to
        // remove listen FD from epoll set", seen once in CI). It is closed after MHD_stop_daemon.
        let listening = MHD_quiesce_daemon(daemon.pointer)
        if listening >= 0 { shutdown(listening, Int32(SHUT_RDWR)) }
        engine.beginDraining()
        return listening
    }

    /// Cuts the grace period short when a stop is already in progress (a second signal).
    func hurryIfStopping() {
        lifecycle.withLock { state in
            if state.stopTask != nil { state.hurry = true }
        }
    }

    /// Returns once the server has stopped, however the stop was asked for.
    public func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            let done = lifecycle.withLock { state in
                if !state.stopped { state.waiters.append(continuation) }
                return state.stopped
            }
            if done { continuation.resume() }
        }
    }

    /// Waits until no request is in flight, the time is up, or a second signal hurries the stop.
    private func waitForInFlight(upTo limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while engine.inFlight > 0, ContinuousClock.now < deadline, !lifecycle.withLock({ $0.hurry }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private func performStop(_ daemon: Daemon?, grace: Duration) async {
        if let daemon {
            await waitForInFlight(upTo: grace)
            // Answer the handlers still running with 503, and give those replies a moment to leave
            // before the connections are closed.
            engine.abandonPending()
            await waitForInFlight(upTo: .seconds(1))
            // MHD_stop_daemon joins the worker threads: block a Dispatch thread, not a cooperative one.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    MHD_stop_daemon(daemon.pointer)
                    continuation.resume()
                }
            }
        }
        let waiters = lifecycle.withLock { state in
            if state.quiescedSocket >= 0 { close(state.quiescedSocket) }
            state.quiescedSocket = -1
            state.daemon = nil
            state.stopped = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
