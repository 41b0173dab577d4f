import Foundation
import TextFormats

/// An error the WaaS service answers with: a non-2xx reply whose JSON body is
/// `{error, code, message, msg, status}` (OMS-REFERENCE "As the official TypeScript SDK sends it").
public struct WaasError: CodedError, Sendable {
    public let code: WaasErrorCode
    /// What went wrong and where (a field, a limit); never secret material.
    public let message: String

    public init(_ code: WaasErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.name) (\(code.code)): \(message)" }

    /// The wire body of this error.
    public var wireBody: WireBody {
        WireBody(error: code.name, code: code.code, msg: message, status: code.httpStatus)
    }

    /// The JSON error body as the service sends it. The text goes out twice: in `message`, which the
    /// official generated client reads (`WebrpcError.new`), and in `msg`, which webrpc's Go servers send
    /// and older clients read. Decoding takes whichever is present.
    public struct WireBody: Codable, Hashable, Sendable {
        public var error: String
        public var code: Int
        public var message: String
        public var msg: String
        public var status: Int

        public init(error: String, code: Int, msg: String, status: Int) {
            self.error = error
            self.code = code
            self.message = msg
            self.msg = msg
            self.status = status
        }

        private enum CodingKeys: String, CodingKey { case error, code, message, msg, status }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let text =
                try container.decodeIfPresent(String.self, forKey: .message)
                ?? container.decodeIfPresent(String.self, forKey: .msg) ?? ""
            self.init(
                error: try container.decodeIfPresent(String.self, forKey: .error) ?? "",
                code: try container.decode(Int.self, forKey: .code), msg: text,
                status: try container.decodeIfPresent(Int.self, forKey: .status) ?? 0)
        }
    }

    /// Decodes an error reply; an unknown code keeps its number, name and status as sent.
    public init?(wireBody data: some DataProtocol, httpStatus: Int) {
        guard let body = try? JSONDecoder().decode(WireBody.self, from: Data(data)) else { return nil }
        let code =
            WaasErrorCode.known(body.code)
            ?? WaasErrorCode(code: body.code, name: body.error, httpStatus: body.status == 0 ? httpStatus : body.status)
        self.init(code, body.message)
    }

    // Shorthands for the handlers.
    public static func invalidRequest(_ message: String) -> WaasError { WaasError(.invalidRequest, message) }
    public static func unauthorized(_ message: String) -> WaasError { WaasError(.unauthorized, message) }
}
