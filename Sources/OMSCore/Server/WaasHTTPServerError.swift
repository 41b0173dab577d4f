import TextFormats

/// Why the HTTP server could not start.
public struct WaasHTTPServerError: CodedError, Sendable {
    public enum Code: String, Sendable {
        /// A configuration value is out of range.
        case invalidConfiguration
        /// The host did not resolve, or the socket could not be created, bound or put to listen.
        case bindFailed
        /// libmicrohttpd refused to start the daemon.
        case startFailed
    }

    /// What kind of failure it is; errors compare by it.
    public let code: Code
    /// What failed and where (the address, the option, the errno text).
    public let message: String

    /// An error of this kind with a message saying what failed and where.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The kind and the message, for logs.
    public var description: String { "WaasHTTPServer \(code.rawValue): \(message)" }
}
