import Foundation

/// An error the WaaS service answers with: a non-2xx reply whose JSON body is
/// `{error, code, msg, status}` (OMS-REFERENCE "As the official TypeScript SDK sends it").
public struct WaasError: Error, Hashable, Sendable, CustomStringConvertible {
    public let code: WaasErrorCode
    /// What went wrong and where (a field, a limit); never secret material.
    public let message: String

    public init(_ code: WaasErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.name) (\(code.code)): \(message)" }

    /// Errors are equal by code (STYLE.md "Types and errors"): the message is for people.
    public static func == (lhs: WaasError, rhs: WaasError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The wire body of this error.
    public var wireBody: WireBody {
        WireBody(error: code.name, code: code.code, msg: message, status: code.httpStatus)
    }

    /// The JSON error body as the service sends it.
    public struct WireBody: Codable, Hashable, Sendable {
        public var error: String
        public var code: Int
        public var msg: String
        public var status: Int
    }

    /// Decodes an error reply; an unknown code keeps its number, name and status as sent.
    public init?(wireBody data: some DataProtocol, httpStatus: Int) {
        guard let body = try? JSONDecoder().decode(WireBody.self, from: Data(data)) else { return nil }
        let code =
            WaasErrorCode.known(body.code)
            ?? WaasErrorCode(code: body.code, name: body.error, httpStatus: body.status == 0 ? httpStatus : body.status)
        self.init(code, body.msg)
    }

    // Shorthands for the handlers.
    public static func invalidRequest(_ message: String) -> WaasError { WaasError(.invalidRequest, message) }
    public static func unauthorized(_ message: String) -> WaasError { WaasError(.unauthorized, message) }
}
