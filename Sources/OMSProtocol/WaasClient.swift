import Foundation
import Synchronization

/// Signs protected requests for one credential.
public protocol RequestSigner: Sendable {
    var algorithm: SignatureHeader.Algorithm { get }
    /// The `cred` of the signature header: a 0x04 hex P-256 key or an EIP-55 address.
    var credentialId: String { get }
    /// The `sig` of the signature header for these preimage bytes.
    func signature(forPreimage preimage: [UInt8]) throws -> String
}

/// Nonces as the official SDK makes them: milliseconds since the epoch, raised by one when equal, so
/// they strictly increase for every request made through this source. After a stale-nonce refusal the
/// client moves the source past another signer of the same credential that got ahead of it
/// (``overtake(_:margin:)``, ``skip(milliseconds:)``).
public final class NonceSource: Sendable {
    private let last = Mutex<UInt64>(0)
    private let now: @Sendable () -> UInt64

    public init(now: @escaping @Sendable () -> UInt64 = { UInt64(Date().timeIntervalSince1970 * 1000) }) {
        self.now = now
    }

    public func next() -> UInt64 {
        let candidate = now()
        return last.withLock { last in
            last = max(candidate, last + 1)
            return last
        }
    }

    /// Moves the next nonce `margin` past `nonce`, the core's last accepted one, when this source has not
    /// given it or one above it: another signer of the credential is ahead, and landing just above it
    /// would lose again to what that signer sends meanwhile. When this source did, the refusal came from
    /// its own later request arriving first, and the next nonce already wins: leaving it keeps the nonces
    /// on the clock (each margin would push every later nonce ahead of it, for good).
    public func overtake(_ nonce: UInt64, margin: UInt64) {
        last.withLock { last in
            if nonce > last { last = nonce + margin }
        }
    }

    /// Moves the next nonce `milliseconds` past the later of the clock and the last nonce given.
    public func skip(milliseconds: UInt64) {
        let candidate = now()
        last.withLock { $0 = max($0, candidate) + milliseconds }
    }
}

/// A stateless protocol client: encodes, signs and sends one method call, decodes the reply.
///
/// It holds no "active wallet": every call names its wallet explicitly, so concurrent tasks can share
/// one client (ARCHITECTURE "Layers").
public struct WaasClient: Sendable {
    public let transport: any WaasTransport
    public let publishableKey: PublishableKey
    public let signer: (any RequestSigner)?
    public let nonces: NonceSource
    /// Attempts per call, the first included, when the core refuses a nonce as stale (1: never resend).
    public let nonceAttempts: Int

    /// The `Webrpc` header the official SDK sends.
    public static let webrpcHeader = "webrpc@v0.37.2;gen-typescript@v0.26.0;waas@v1-26.9.22-f21ed9d2"

    public init(
        transport: any WaasTransport, publishableKey: PublishableKey, signer: (any RequestSigner)? = nil,
        nonces: NonceSource = NonceSource(), nonceAttempts: Int? = nil
    ) {
        self.transport = transport
        self.publishableKey = publishableKey
        self.signer = signer
        self.nonces = nonces
        // nil: the library's default, read here (not folded into callers' default arguments).
        self.nonceAttempts = max(1, nonceAttempts ?? WaasClient.maximumNonceAttempts)
    }

    /// The same client signing with another credential.
    public func signing(with signer: any RequestSigner, nonces: NonceSource = NonceSource()) -> WaasClient {
        WaasClient(
            transport: transport, publishableKey: publishableKey, signer: signer, nonces: nonces,
            nonceAttempts: nonceAttempts)
    }

    /// The same client with another bound on stale-nonce resends (1: a stale nonce is thrown at once, for
    /// tests of the core's nonce rule).
    public func resendingStaleNonces(attempts: Int) -> WaasClient {
        WaasClient(
            transport: transport, publishableKey: publishableKey, signer: signer, nonces: nonces,
            nonceAttempts: attempts)
    }

    /// JSON as the TypeScript SDK writes it: absent fields left out, slashes unescaped.
    public static func encodeBody<Body: Encodable>(_ body: Body) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return [UInt8](try encoder.encode(body))
    }

    /// Builds the signed HTTP request for a call, without sending it.
    public func makeRequest(
        _ method: WaasMethod, body: [UInt8], extraHeaders: [(name: String, value: String)] = []
    ) throws -> WaasHTTPRequest {
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"),
            ("Webrpc", Self.webrpcHeader),
        ]
        headers.append(contentsOf: extraHeaders)
        headers.append(("Api-Key", publishableKey.rawValue))
        if method.isProtected {
            guard let signer else {
                throw WaasClientError(.missingCredential, method: method, "\(method.name) needs a signed-in credential")
            }
            let nonce = nonces.next()
            let scope = publishableKey.projectId
            let preimage = RequestPreimage.bytes(path: method.path, nonce: nonce, scope: scope, body: body)
            let header = SignatureHeader(
                algorithm: signer.algorithm, scope: scope, credential: signer.credentialId, nonce: nonce,
                signature: try signer.signature(forPreimage: preimage))
            headers.append((SignatureHeader.name, header.value))
        }
        return WaasHTTPRequest(path: method.path, headers: headers, body: body)
    }

    /// Calls a method and decodes its reply; a service error is thrown as `WaasError`.
    public func call<Request: Encodable, Response: Decodable>(
        _ method: WaasMethod, _ request: Request, as: Response.Type = Response.self
    ) async throws -> Response {
        let (response, _) = try await callRaw(method, body: Self.encodeBody(request))
        return try Self.decode(Response.self, from: response, method: method)
    }

    /// Calls a method with exact body bytes and returns the raw reply with the request that got it (for
    /// attested calls that must check the reply bytes). A service error is thrown as `WaasError`; a
    /// stale-nonce refusal is first sent again under a fresh nonce (bounded, see `WaasClient+StaleNonce`).
    public func callRaw(
        _ method: WaasMethod, body: [UInt8], extraHeaders: [(name: String, value: String)] = []
    ) async throws -> (WaasHTTPResponse, WaasHTTPRequest) {
        try await sendRetryingStaleNonces(method, body: body, extraHeaders: extraHeaders)
    }

    /// Decodes a successful reply.
    public static func decode<Response: Decodable>(
        _ type: Response.Type, from response: WaasHTTPResponse, method: WaasMethod
    ) throws -> Response {
        do {
            return try JSONDecoder().decode(Response.self, from: Data(response.body))
        } catch {
            throw WaasClientError(
                .invalidResponse, method: method, "\(method.name): reply does not decode: \(error)",
                status: response.status)
        }
    }
}

/// Requests refused for a stale nonce are signed again with a fresh one and resent.
///
/// Nonces are per credential and must increase (OMS-REFERENCE.md). When one credential signs in several
/// places at once — concurrent tasks of one process, or two processes sharing a stored credential (a
/// job and `walletops wallet list` beside it) — a request can reach the core after one with a higher
/// nonce and be refused with PreconditionFailed (7206). The core checks the nonce before anything else,
/// inside the method's transaction, so such a refusal changed nothing: sending the request again under a
/// fresh, higher nonce is safe for every method, creating ones included. The client does so at most
/// ``nonceAttempts`` times in all (default ``maximumNonceAttempts``), after a jittered pause of a few
/// milliseconds. When the core names its last nonce ("... the last one used (L)") and this client has
/// signed above `L`, the refusal was its own later request arriving first, and the next nonce is sent
/// as it comes. Otherwise another signer is ahead, and the nonce source moves past `L` (or past its own
/// clock when the core names none) by a margin that doubles per attempt (4, 8, 16 ... ms): landing just
/// above `L` would lose the same race again to the requests that signer sent meanwhile. Only then: a
/// margin taken on every refusal between one job's concurrent requests would add up, carrying its nonces
/// ever further ahead of the clock and of every other signer of the credential.
extension WaasClient {
    /// The default attempts per call (the first one included) before a stale-nonce refusal is thrown.
    public static let maximumNonceAttempts = 10

    /// Whether `error` is a stale-nonce refusal, and the core's last nonce when its message names it.
    static func staleNonce(_ error: WaasError) -> (isStale: Bool, lastUsed: UInt64?) {
        guard error.code == .preconditionFailed else { return (false, nil) }
        // "nonce N is not above the last one used (L)": the walletops core names L.
        guard let open = error.message.lastIndex(of: "("), let close = error.message.lastIndex(of: ")"),
            open < close
        else { return (true, nil) }
        return (true, UInt64(error.message[error.message.index(after: open)..<close]))
    }

    /// Sends `body` signed under fresh nonces until it is not refused as stale (bounded).
    func sendRetryingStaleNonces(
        _ method: WaasMethod, body: [UInt8], extraHeaders: [(name: String, value: String)]
    ) async throws -> (WaasHTTPResponse, WaasHTTPRequest) {
        var attempt = 1
        while true {
            let request = try makeRequest(method, body: body, extraHeaders: extraHeaders)
            let response = try await transport.send(request)
            if (200..<300).contains(response.status) { return (response, request) }
            guard let error = WaasError(wireBody: response.body, httpStatus: response.status) else {
                throw WaasClientError(
                    .invalidResponse, method: method, "HTTP \(response.status) without an error body",
                    status: response.status)
            }
            let stale = Self.staleNonce(error)
            guard method.isProtected, stale.isStale, attempt < nonceAttempts else { throw error }
            let margin = UInt64(1) << UInt64(min(attempt + 1, 16))
            if let last = stale.lastUsed {
                nonces.overtake(last, margin: margin)
            } else {
                nonces.skip(milliseconds: margin)
            }
            attempt += 1
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...attempt)))
        }
    }
}

/// A client-side failure that is not a service error.
public struct WaasClientError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case missingCredential, invalidResponse
        /// The caller's arguments cannot make a valid request (e.g. more than 4,000 keys in one batch);
        /// nothing was sent.
        case invalidArgument
        /// An attested reply's document did not verify (docs/import.md); never retryable.
        case attestationVerificationFailed
    }
    public let code: Code
    public let method: WaasMethod
    public let message: String
    public let status: Int?

    public init(_ code: Code, method: WaasMethod, _ message: String, status: Int? = nil) {
        self.code = code
        self.method = method
        self.message = message
        self.status = status
    }

    public var description: String { message }
}
