/// An HTTP request or reply of the protocol, independent of how it travels.
public struct WaasHTTPMessage: Sendable {
    /// Header names as sent; look them up with `header(_:)`, which ignores case.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.headers = headers
        self.body = body
    }

    /// The first header with this name, compared without regard to case.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }

    public mutating func setHeader(_ name: String, _ value: String) {
        let lowered = name.lowercased()
        headers.removeAll { $0.name.lowercased() == lowered }
        headers.append((name, value))
    }
}

/// A request: always `POST` to a method's path.
public struct WaasHTTPRequest: Sendable {
    public var path: String
    public var message: WaasHTTPMessage
    public init(path: String, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.path = path
        self.message = WaasHTTPMessage(headers: headers, body: body)
    }
    public var body: [UInt8] { message.body }
    public func header(_ name: String) -> String? { message.header(name) }
}

/// A reply: a status and a JSON body.
public struct WaasHTTPResponse: Sendable {
    public var status: Int
    public var message: WaasHTTPMessage
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.status = status
        self.message = WaasHTTPMessage(headers: headers, body: body)
    }
    public var body: [UInt8] { message.body }
    public func header(_ name: String) -> String? { message.header(name) }
}

/// What serves requests: the core's handler implements it; the in-process transport calls it directly
/// with the same signed bytes the HTTP server would receive.
public protocol WaasRequestHandler: Sendable {
    func handle(_ request: WaasHTTPRequest) async -> WaasHTTPResponse
}

/// How a client's requests travel to a service.
public protocol WaasTransport: Sendable {
    /// Sends one request. Throws `TransportError` when no reply arrived; a reply with an error status is
    /// returned, not thrown.
    func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse
}

/// A request that got no reply.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// Whether the request may have reached the service (the answer was lost): the outcome is in doubt.
    public var mayHaveBeenDelivered: Bool
    /// Whether the service could not be reached at all (refused, no such host): nothing was sent, and
    /// trying again soon is unlikely to help until the service is back.
    public var isUnreachable: Bool
    public var message: String
    public init(mayHaveBeenDelivered: Bool, isUnreachable: Bool = false, message: String) {
        self.mayHaveBeenDelivered = mayHaveBeenDelivered
        self.isUnreachable = isUnreachable
        self.message = message
    }
    public var description: String { message }
}

/// The in-process transport: hands the request bytes to a handler in the same process.
public struct InProcessTransport: WaasTransport {
    public let handler: any WaasRequestHandler
    public init(handler: any WaasRequestHandler) { self.handler = handler }
    public func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse {
        await handler.handle(request)
    }
}
