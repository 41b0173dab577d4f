internal import CMicroHTTPD
import Foundation
import OMSProtocol
import Synchronization

/// The part of the server that libmicrohttpd's callbacks reach (through the `cls` pointer): routing,
/// body accumulation, the hand-off to the async handlers, and the in-flight bookkeeping that a graceful
/// stop waits on.
///
/// Handler bridge: once a request is complete, the worker thread starts the handler in a `Task` and
/// blocks until its reply, running the task's jobs itself meanwhile (`WorkerExecutor`). Blocking is
/// acceptable there because libmicrohttpd's pool threads are its own, not Swift's cooperative threads; it
/// costs no thread creation and, for a handler that does not suspend, no thread hop per request, and it
/// keeps the reply in the same callback, which libmicrohttpd 0.9.75 requires unless the connection is
/// suspended. A pool thread serves one request at a time while it waits, so the pool size bounds the
/// handlers running at once.
final class HTTPServerEngine: Sendable {
    let handler: any WaasRequestHandler
    let wellKnown: (any WellKnownProvider)?
    let maxBodyBytes: Int
    /// Bytes of an oversized chunked body read and dropped (to answer 413 at its end: libmicrohttpd 0.9.75
    /// cannot answer mid-body) before the connection is cut instead; 64 MiB at the default limit, which
    /// loopback and a LAN deliver in well under the idle timeout.
    let discardLimit: Int

    private struct State {
        /// The grace period is over: running handlers were answered 503, new ones are not started.
        var closed = false
        var pending: [ObjectIdentifier: WorkerExecutor] = [:]
    }

    private let state = Mutex(State())
    /// Requests whose headers arrived and whose reply is not yet sent (atomic: touched twice per request).
    private let requestsInFlight = Atomic(0)
    /// Stop was asked: replies carry `Connection: close` so clients leave their kept-alive connections.
    private let draining = Atomic(false)

    init(handler: any WaasRequestHandler, wellKnown: (any WellKnownProvider)?, maxBodyBytes: Int) {
        self.handler = handler
        self.wellKnown = wellKnown
        self.maxBodyBytes = maxBodyBytes
        discardLimit = max(maxBodyBytes, 1 << 20) * 64
    }

    /// Requests whose headers arrived and whose reply is not yet sent.
    var inFlight: Int { requestsInFlight.load(ordering: .acquiring) }

    func beginDraining() {
        draining.store(true, ordering: .releasing)
    }

    /// Ends the grace period: answers every handler still running with 503 and refuses to start more.
    func abandonPending() {
        draining.store(true, ordering: .releasing)
        let executors = state.withLock { state in
            state.closed = true
            return Array(state.pending.values)
        }
        let reply = Self.unavailable("the server stopped before the request was handled")
        for executor in executors { executor.fulfil(reply) }
    }

    // MARK: Routing

    static let waasPrefix = "/v1/Waas/"
    static let waasPublicPrefix = "/v1/WaasPublic/"

    func route(method: String, path: String) -> Route {
        let isWaas =
            (path.hasPrefix(Self.waasPrefix) && path.utf8.count > Self.waasPrefix.utf8.count)
            || (path.hasPrefix(Self.waasPublicPrefix) && path.utf8.count > Self.waasPublicPrefix.utf8.count)
        if isWaas {
            guard method == "POST" else {
                return .reject(status: 405, message: "\(method) is not allowed on \(path); use POST", allow: "POST")
            }
            return .waas(path: path)
        }
        if let document = WellKnownDocument(rawValue: path) {
            guard method == "GET" || method == "HEAD" else {
                return .reject(
                    status: 405, message: "\(method) is not allowed on \(path); use GET", allow: "GET, HEAD")
            }
            return .wellKnown(document)
        }
        return .reject(status: 404, message: "no route for \(method) \(path)", allow: nil)
    }

    // MARK: The access handler

    /// One call of libmicrohttpd's access handler (see `MHD_AccessHandlerCallback`): the first call
    /// brings the headers, the next ones the body in pieces, the last one nothing.
    func access(
        connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
        uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>,
        contextSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let pointer = contextSlot.pointee else {
            return begin(connection: connection, url: url, method: method, contextSlot: contextSlot)
        }
        let context = ConnectionContext.from(pointer)
        let count = uploadDataSize.pointee
        if count > 0, let uploadData {
            uploadDataSize.pointee = 0
            return receive(context, uploadData, count)
        }
        return finish(connection: connection, context: context)
    }

    private func begin(
        connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
        contextSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let context = ConnectionContext(route: route(method: String(cString: method), path: String(cString: url)))
        contextSlot.pointee = Unmanaged.passRetained(context).toOpaque()
        requestsInFlight.add(1, ordering: .relaxed)
        switch context.route {
        case .reject(let status, let message, let allow):
            // Answered before the body: libmicrohttpd drops the rest and closes the connection after it.
            // webrpc's own codes, which every webrpc client maps: no such route, or the wrong HTTP method.
            let code: WaasErrorCode =
                switch status {
                case 404: .webrpcBadRoute
                case 405: .webrpcBadMethod
                default: Self.invalidRequest(status)
                }
            var reply = Self.errorResponse(code, message)
            if let allow { reply.message.headers.append(("Allow", allow)) }
            return queue(reply, on: connection)
        case .waas:
            if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
                let declared = Int(String(cString: length))
            {
                if declared > maxBodyBytes { return queue(tooLarge(), on: connection) }
                context.body.reserveCapacity(declared)
            }
        case .wellKnown:
            break
        }
        return .YES
    }

    private func receive(_ context: ConnectionContext, _ data: UnsafePointer<CChar>, _ count: Int) -> MHD_Result {
        if context.overflowed {
            context.discardedBytes += count
            // A body that never ends is not drained forever: cut the connection.
            return context.discardedBytes > discardLimit ? .NO : .YES
        }
        guard context.body.count + count <= maxBodyBytes else {
            // libmicrohttpd 0.9.75 cannot answer while body data is being delivered: drop it and answer
            // 413 when the request ends.
            context.overflowed = true
            context.discardedBytes = context.body.count + count
            context.body = []
            return .YES
        }
        data.withMemoryRebound(to: UInt8.self, capacity: count) {
            context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
        }
        return .YES
    }

    private func finish(connection: OpaquePointer, context: ConnectionContext) -> MHD_Result {
        if context.overflowed { return queue(tooLarge(), on: connection) }
        switch context.route {
        case .waas(let path):
            let contextPointer = Unmanaged.passUnretained(context).toOpaque()
            _ = MHD_get_connection_values(connection, .HEADER_KIND, MHDCallbacks.collectHeader, contextPointer)
            let request = WaasHTTPRequest(path: path, headers: context.headers, body: context.body)
            context.body = []
            let handler = self.handler
            return queue(run { await handler.handle(request) }, on: connection)
        case .wellKnown(let document):
            let provider = wellKnown
            let reply = run {
                guard let found = await provider?.response(for: document) else {
                    return Self.errorResponse(.webrpcBadRoute, "\(document.path) is not published here")
                }
                return WaasHTTPResponse(
                    status: found.status, headers: [("Content-Type", found.contentType)], body: found.body)
            }
            return queue(reply, on: connection)
        case .reject:
            // Answered on the first call; libmicrohttpd does not call again, but stay safe if it does.
            return .YES
        }
    }

    /// Runs async work in a task on this libmicrohttpd worker thread (`WorkerExecutor`) until it replies.
    private func run(_ work: @escaping @Sendable () async -> WaasHTTPResponse) -> WaasHTTPResponse {
        let executor = WorkerExecutor()
        let key = ObjectIdentifier(executor)
        let admitted = state.withLock { state in
            guard !state.closed else { return false }
            state.pending[key] = executor
            return true
        }
        guard admitted else { return Self.unavailable("the server is stopping") }
        executor.start(work)
        let reply = executor.waitForReply()
        _ = state.withLock { $0.pending.removeValue(forKey: key) }
        return reply
    }

    /// The request-completed callback: releases the context and counts the request done.
    func completed(contextSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let contextSlot, let pointer = contextSlot.pointee else { return }
        contextSlot.pointee = nil
        Unmanaged<ConnectionContext>.fromOpaque(pointer).release()
        requestsInFlight.subtract(1, ordering: .releasing)
    }

    // MARK: Replies

    /// Hands a reply to libmicrohttpd (which copies the body once), with `Content-Type: application/json`
    /// unless the reply names another.
    private func queue(_ reply: WaasHTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        guard (100...599).contains(reply.status) else {
            // libmicrohttpd would drop the connection without a reply.
            return queue(
                Self.errorResponse(.internal, "the handler answered HTTP status \(reply.status)"), on: connection)
        }
        let response = reply.message.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        var hasContentType = false
        for (name, value) in reply.message.headers {
            switch name.lowercased() {
            case "content-length", "transfer-encoding", "connection":
                continue  // framing is libmicrohttpd's
            case "content-type":
                hasContentType = true
            default:
                break
            }
            _ = MHD_add_response_header(response, name, value)
        }
        if !hasContentType { _ = MHD_add_response_header(response, "Content-Type", "application/json") }
        if draining.load(ordering: .acquiring) { _ = MHD_add_response_header(response, "Connection", "close") }
        return MHD_queue_response(connection, UInt32(clamping: reply.status), response)
    }

    private func tooLarge() -> WaasHTTPResponse {
        Self.errorResponse(Self.invalidRequest(413), "the request body is larger than \(maxBodyBytes) bytes")
    }

    /// InternalError (7100) as 503 Service Unavailable: the server is stopping.
    static func unavailable(_ message: String) -> WaasHTTPResponse {
        let code = WaasErrorCode.internalUnavailable
        return errorResponse(WaasErrorCode(code: code.code, name: code.name, httpStatus: 503), message)
    }

    /// InvalidRequest (7200) with the HTTP status of this reply.
    static func invalidRequest(_ status: Int) -> WaasErrorCode {
        WaasErrorCode(
            code: WaasErrorCode.invalidRequest.code, name: WaasErrorCode.invalidRequest.name, httpStatus: status)
    }

    /// A reply whose body is the OMS error shape `{error, code, msg, status}`.
    static func errorResponse(_ code: WaasErrorCode, _ message: String) -> WaasHTTPResponse {
        let body = (try? JSONEncoder().encode(WaasError(code, message).wireBody)).map { [UInt8]($0) } ?? []
        return WaasHTTPResponse(status: code.httpStatus, headers: [("Content-Type", "application/json")], body: body)
    }
}
