import Foundation
import OMSProtocol
import Testing

/// A request as the official generated client builds it (its JSON written out in the test, field by
/// field from the schema), signed and sent to a served core; the reply read as plain JSON, by the
/// client's field names, never through our own wire types.
struct SDKWire {
    let client: WaasClient
    let transport: any WaasTransport

    /// The parsed reply and its HTTP status.
    struct Reply {
        var status: Int
        var json: [String: Any]

        /// The error class the generated client would pick (`webrpcErrorByCode[code]`), with its text
        /// as the client reads it (`payload.message`).
        var errorCode: Int? { status == 200 ? nil : json["code"] as? Int }
        var message: String? { json["message"] as? String }
        subscript(key: String) -> Any? { json[key] }
    }

    /// Sends once; a request that lost the nonce race to a concurrent one of the same credential
    /// (PreconditionFailed 7206) is signed again with a fresh nonce, as clients do.
    func send(_ method: WaasMethod, _ body: String) async throws -> Reply {
        var reply = try await sendOnce(method, body)
        for _ in 0..<8 where reply.errorCode == 7206 { reply = try await sendOnce(method, body) }
        return reply
    }

    private func sendOnce(_ method: WaasMethod, _ body: String) async throws -> Reply {
        let request =
            method.isProtected
            ? try client.makeRequest(method, body: Array(body.utf8))
            : WaasHTTPRequest(
                path: method.path,
                headers: [("Content-Type", "application/json"), ("Api-Key", client.publishableKey.rawValue)],
                body: Array(body.utf8))
        let reply = try await transport.send(request)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any],
            "\(method): \(String(decoding: reply.body, as: UTF8.self))")
        return Reply(status: reply.status, json: json)
    }

    /// Sends and requires a 200, showing the error otherwise.
    func ok(_ method: WaasMethod, _ body: String) async throws -> [String: Any] {
        let reply = try await send(method, body)
        #expect(reply.status == 200, "\(method): \(reply.json)")
        return reply.json
    }
}
