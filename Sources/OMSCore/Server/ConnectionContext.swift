/// What the server does with one request, decided from its method and path when its headers arrive.
enum Route {
    /// `POST /v1/Waas/<Method>` or `POST /v1/WaasPublic/<Method>`: the request handler.
    case waas(path: String)
    /// `GET /.well-known/...`: the well-known provider.
    case wellKnown(WellKnownDocument)
    /// Answered at once with an OMS error body (404, 405); `allow` fills the `Allow` header of a 405.
    case reject(status: Int, message: String, allow: String?)
}

/// The state of one request while libmicrohttpd reads it: created on the first call of the access
/// handler, kept in libmicrohttpd's `*con_cls` as a retained `Unmanaged` pointer, released in the
/// request-completed callback.
///
/// Not `Sendable`: libmicrohttpd calls back for one connection on one worker thread at a time, and the
/// handler's task receives a `WaasHTTPRequest` value, never this object.
final class ConnectionContext {
    let route: Route
    /// Request headers in the order and spelling sent, read once the request is complete.
    var headers: [(name: String, value: String)] = []
    /// The body, copied once from libmicrohttpd's read buffer.
    var body: [UInt8] = []
    /// The body passed the limit: the rest is read and dropped, then answered 413.
    var overflowed = false
    /// Bytes read and dropped after an overflow.
    var discardedBytes = 0

    init(route: Route) {
        self.route = route
    }

    /// The context behind a `*con_cls` pointer, without touching its retain count.
    static func from(_ pointer: UnsafeMutableRawPointer) -> ConnectionContext {
        Unmanaged<ConnectionContext>.fromOpaque(pointer).takeUnretainedValue()
    }
}

@available(*, unavailable)
extension ConnectionContext: Sendable {}
