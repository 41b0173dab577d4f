import Foundation
import HomeLayout
import OMSProtocol
import SQLiteKit
import Synchronization
import WalletCrypto

/// The WaaS service: authenticates each request and runs its method, answering with the OMS wire format.
///
/// It is the `WaasRequestHandler` behind both transports: the in-process one hands it the same signed
/// bytes the HTTP server would, so both paths verify requests the same way.
public final class WaasService: WaasRequestHandler {
    public let home: WalletHome
    public let store: CoreStore
    let custody: KeyCustody
    let tokens: TokenIssuer
    /// Signs attestation documents for import replies (a development-mode enclave).
    let enclave: DevEnclave
    let clock: any CoreClock
    /// The ID-token issuer URL (`iss`); its JWKS is served at `/.well-known/jwks.json`.
    public let issuer: String
    /// The largest request body accepted.
    public let maxBodyBytes: Int
    /// Clock skew allowed when checking expiries (OMS-REFERENCE "Our decisions").
    let leeway: Int64 = 60
    /// Projects by publishable key: every request names one, and projects are only added by `initialize`
    /// (a separate process), never changed, so a key found once is kept instead of read per request.
    private let projectsByKey = Mutex<[String: ProjectRecord]>([:])
    /// The highest nonce whose write ``admit(_:)`` queued, per credential (this process only; a cap on
    /// entries, then forgotten: it only refuses early what the nonce write would refuse anyway). Internal
    /// rather than private for `ImportNonceOrderTests`.
    let admittedNonces = Mutex<[String: UInt64]>([:])
    private static let admittedNoncesCap = 4096
    /// ImportWallets batches being opened, derived and sealed right now: `prepareImports` splits a batch
    /// over the cores only when it is the only one.
    let importsPreparing = Atomic<Int>(0)

    init(
        home: WalletHome, store: CoreStore, custody: KeyCustody, issuer: String, clock: any CoreClock, maxBodyBytes: Int
    ) {
        self.home = home
        self.store = store
        self.custody = custody
        self.tokens = TokenIssuer(custody: custody)
        self.enclave = DevEnclave(custody: custody)
        self.issuer = issuer
        self.clock = clock
        self.maxBodyBytes = maxBodyBytes
    }

    // MARK: Dispatch

    /// Who is calling: the project of the `Api-Key`, and for protected methods the verified signature.
    struct Call: Sendable {
        var project: ProjectRecord
        var signature: SignatureHeader?
        var now: Int64
    }

    typealias Method = @Sendable (WaasService, Call, [UInt8]) async throws -> [UInt8]

    /// Decodes the body as `Request`, runs `body`, encodes its result (with `encode`: JSONEncoder unless a
    /// method has a faster writer of the same JSON).
    static func method<Request: Decodable & Sendable, Response: Encodable & Sendable>(
        _ body: @escaping @Sendable (WaasService, Call, Request) async throws -> Response,
        encode: @escaping @Sendable (Response) throws -> [UInt8] = { try WaasClient.encodeBody($0) }
    ) -> Method {
        { service, call, bytes in
            // JSONDecoder keeps one of two members of the same name and nests as deep as it is sent: the
            // strict parser first, which refuses both (and invalid UTF-8) at a byte offset.
            if !bytes.isEmpty {
                do {
                    _ = try JSONValue.parse(bytes, maxDepth: Self.maxBodyDepth)
                } catch {
                    throw WaasError(.invalidRequest, "body: \(error)")
                }
            }
            let request: Request
            do {
                request = try JSONDecoder().decode(Request.self, from: Data(bytes.isEmpty ? Array("{}".utf8) : bytes))
            } catch let error as DecodingError {
                throw WaasError(.invalidRequest, DecodingErrorText.describe(error))
            } catch {
                throw WaasError(.invalidRequest, "body is not JSON")
            }
            // Every request is a JSON object; a body-less request type (`Empty`) would otherwise accept any JSON.
            guard bytes.isEmpty || bytes.first(where: { !Self.jsonWhitespace.contains($0) }) == UInt8(ascii: "{") else {
                throw WaasError(.invalidRequest, "body: expected a JSON object")
            }
            return try encode(try await body(service, call, request))
        }
    }

    static let jsonWhitespace: Set<UInt8> = [0x20, 0x09, 0x0a, 0x0d]

    /// The deepest nesting a request body may have; the deepest request of the protocol has five levels.
    static let maxBodyDepth = 32

    /// Like ``method(_:encode:)`` for a request with a fast reader of its own (`parse`, nil for anything
    /// not well formed): a body it refuses goes through the ordinary decoder, whose errors name the field.
    static func method<Request: Decodable & Sendable, Response: Encodable & Sendable>(
        _ body: @escaping @Sendable (WaasService, Call, Request) async throws -> Response,
        parse: @escaping @Sendable ([UInt8]) -> Request?, encode: @escaping @Sendable (Response) throws -> [UInt8]
    ) -> Method {
        let ordinary = method(body, encode: encode)
        return { service, call, bytes in
            guard let request = parse(bytes) else { return try await ordinary(service, call, bytes) }
            return try encode(try await body(service, call, request))
        }
    }

    /// Every method the core serves: one table per feature file, keyed by path.
    static let methods: [String: Method] = [
        publicMethods, authMethods, walletMethods, tokenMethods, accessMethods, remoteMethods, spendingMethods,
        importMethods, createWalletsMethods, signingMethods,
    ]
    .reduce(into: [:]) { table, feature in table.merge(feature) { first, _ in first } }

    public func handle(_ request: WaasHTTPRequest) async -> WaasHTTPResponse {
        do {
            let attestation = try await prepareAttestation(request)
            let body = try await route(request)
            var response = WaasHTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
            // Attested after the body is final, so user_data covers the exact bytes sent.
            if let attestation {
                response.message.setHeader(
                    Attestation.documentHeader,
                    try attestationDocument(attestation, request: request, responseBody: body))
            }
            return response
        } catch let error as WaasError {
            return Self.errorResponse(error)
        } catch {
            // Never echo an unexpected error: it could carry details that do not belong on the wire.
            return Self.errorResponse(WaasError(.internal, "internal error"))
        }
    }

    static func errorResponse(_ error: WaasError) -> WaasHTTPResponse {
        let body = (try? WaasClient.encodeBody(error.wireBody)) ?? []
        return WaasHTTPResponse(
            status: error.code.httpStatus, headers: [("Content-Type", "application/json")], body: body)
    }

    private func route(_ request: WaasHTTPRequest) async throws -> [UInt8] {
        guard let method = WaasMethod(path: request.path), let run = Self.methods[method.path] else {
            throw WaasError(.invalidRequest, "unknown method \(request.path)")
        }
        guard request.body.count <= maxBodyBytes else {
            throw WaasError(.invalidRequest, "body of \(request.body.count) bytes exceeds \(maxBodyBytes)")
        }
        guard let apiKey = request.header("Api-Key"), !apiKey.isEmpty else {
            throw WaasError(.unauthorized, "missing Api-Key header")
        }
        let project = try await project(publishableKey: apiKey)
        var call = Call(project: project, signature: nil, now: clock.now())
        if method.isProtected {
            guard let text = request.header(SignatureHeader.name) else {
                throw WaasError(.unauthorized, "missing \(SignatureHeader.name) header")
            }
            let header = try SignatureHeader(parsing: text)
            guard header.scope == project.id else {
                throw WaasError(.unauthorized, "signature scope \(header.scope) is not this project (\(project.id))")
            }
            let preimage = RequestPreimage.bytes(
                path: method.path, nonce: header.nonce, scope: header.scope, body: request.body)
            try RequestVerifier.verify(header, preimage: preimage)
            try Self.checkNonceLead(header.nonce, nowMilliseconds: Self.wallClockMilliseconds())
            call.signature = Self.canonical(header)
        }
        return try await run(self, call, request.body)
    }

    /// How far ahead of the server's clock a nonce may be: 10 minutes, room for a client's clock skew
    /// and the margins of stale-nonce resends (docs/core.md "Credentials and nonces").
    static let maxNonceLeadMilliseconds: UInt64 = 600_000

    /// Refuses a nonce more than ``maxNonceLeadMilliseconds`` ahead of `nowMilliseconds`, before it is
    /// recorded: nonces are milliseconds since the epoch (the SDK's), and one accepted far ahead (2^63-1)
    /// would leave its credential no nonce above it, locking it out for good. InvalidRequest, not the
    /// PreconditionFailed of a stale nonce, so clients do not resend it.
    static func checkNonceLead(_ nonce: UInt64, nowMilliseconds: UInt64) throws(WaasError) {
        let limit = nowMilliseconds + maxNonceLeadMilliseconds
        guard nonce <= limit else {
            throw WaasError(
                .invalidRequest,
                "nonce \(nonce) is more than \(maxNonceLeadMilliseconds / 1000) s ahead of the server's clock "
                    + "(\(nowMilliseconds) ms since the epoch); nonces are milliseconds since the epoch")
        }
    }

    /// The wall clock in milliseconds since the epoch: the nonces' clock, which is the clients' wall clock,
    /// not the injected ``CoreClock`` of session lifetimes (tests set that one in the past).
    static func wallClockMilliseconds() -> UInt64 { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) }

    /// The project of a publishable key, from the cache or the store; an unknown key is Unauthorized.
    private func project(publishableKey key: String) async throws -> ProjectRecord {
        if let cached = projectsByKey.withLock({ $0[key] }) { return cached }
        guard let project = try await store.read({ try $0.project(publishableKey: key) }) else {
            throw WaasError(.unauthorized, "unknown publishable key")
        }
        projectsByKey.withLock { $0[key] = project }
        return project
    }

    /// One spelling per credential: the signature does not cover the header, so a `cred` whose hex case
    /// was changed would otherwise be a fresh nonce counter for the same key (a replay). P-256 keys are
    /// lowercase hex, Ethereum addresses EIP-55, as the official SDK sends them.
    static func canonical(_ header: SignatureHeader) -> SignatureHeader {
        var header = header
        switch header.algorithm {
        case .p256: header.credential = header.credential.lowercased()
        case .secp256k1EIP191:
            if let address = try? EthereumAddress(header.credential, strict: false) {
                header.credential = address.checksummed
            }
        case .unknown: break
        }
        return header
    }

    // MARK: Authentication inside a method's transaction

    /// The caller of a protected method, checked inside the method's own transaction: the nonce advances
    /// and the credential must be registered, unrevoked and unexpired, with an account.
    struct Caller {
        var credential: CredentialRecord
        var account: AccountRecord
    }

    func authenticate(_ db: SQLiteDatabase, _ call: Call) throws -> Caller {
        let header = try signature(of: call)
        try db.advanceNonce(credential: header.credential, to: header.nonce)
        return try caller(db, header, call)
    }

    /// Queues the nonce write of a method that works before it inserts (``CoreStore/submit(_:)``), in
    /// arrival order, and returns its ticket (the caller's account id once committed).
    ///
    /// A request arriving after one signed later on its credential (concurrent batches of one client)
    /// would fail at its nonce write, after its work: it is refused here instead, at once and for the
    /// same reason, since writes commit in the order queued and the later nonce's write comes first.
    func admit(_ call: Call) throws -> WriteTicket<String> {
        try queueAdmitted(call) { [self] db in try authenticate(db, call).account.id }
    }

    /// The one write of a method that authenticates and works in the same transaction (GetRecipientKey),
    /// queued as ``admit(_:)`` queues a nonce write: its nonce counts among the admitted ones. An
    /// ImportWallets of the same client signed just before it, but arriving just after, is then refused
    /// at once rather than after preparing thousands of keys (its nonce write, queued behind this one,
    /// would fail). Awaited here.
    func admittedWrite<T: Sendable>(
        _ call: Call, _ body: @escaping @Sendable (SQLiteDatabase, Caller) throws -> T
    ) async throws -> T {
        try await queueAdmitted(call) { [self] db in try body(db, authenticate(db, call)) }.value()
    }

    /// Refuses `call` if a nonce at least as high was admitted on its credential, else records its nonce
    /// and queues `write` (which advances the nonce) under the same lock: the writes go in the order the
    /// nonces were admitted.
    private func queueAdmitted<T: Sendable>(
        _ call: Call, _ write: @escaping @Sendable (SQLiteDatabase) throws -> T
    ) throws -> WriteTicket<T> {
        let header = try signature(of: call)
        return try admittedNonces.withLock { admitted throws(WaasError) -> WriteTicket<T> in
            if let last = admitted[header.credential], header.nonce <= last {
                throw WaasError(.preconditionFailed, "nonce \(header.nonce) is not above the last one used (\(last))")
            }
            if admitted.count >= Self.admittedNoncesCap { admitted.removeAll() }
            admitted[header.credential] = header.nonce
            return store.submit(write)
        }
    }

    /// Authentication's checks on a read beside the method's queued nonce write (``CoreStore/submit(_:)``):
    /// the credential registered, unrevoked and unexpired, with an account, and the nonce not below the
    /// last committed one, so a replayed request is refused before any work rather than after it.
    /// `nonceSeen`: the nonce equals the last committed one, which is this request's own nonce write or a
    /// replay of the last request: the caller awaits the nonce write's verdict before working.
    func signedInCaller(_ db: SQLiteDatabase, _ call: Call) throws -> (caller: Caller, nonceSeen: Bool) {
        let header = try signature(of: call)
        let last = try db.lastNonce(credential: header.credential)
        guard header.nonce >= last else {
            throw WaasError(.preconditionFailed, "nonce \(header.nonce) is not above the last one used (\(last))")
        }
        return (try caller(db, header, call), header.nonce == last)
    }

    /// The signed-in credential of `header` and its account.
    private func caller(_ db: SQLiteDatabase, _ header: SignatureHeader, _ call: Call) throws -> Caller {
        guard let credential = try db.credential(header.credential, project: call.project.id) else {
            throw WaasError(.unauthorized, "credential is not signed in")
        }
        guard credential.revokedAt == nil else { throw WaasError(.unauthorized, "credential was revoked") }
        guard call.now <= credential.expiresAt + leeway else {
            throw WaasError(.keyExpired, "credential expired at \(RFC3339.format(credential.expiresAt))")
        }
        guard let accountId = credential.accountId, let account = try db.account(accountId) else {
            throw WaasError(.unauthorized, "credential has no account")
        }
        return Caller(credential: credential, account: account)
    }

    func signature(of call: Call) throws(WaasError) -> SignatureHeader {
        guard let header = call.signature else { throw WaasError(.unauthorized, "request is not signed") }
        return header
    }
}

/// Says which field of a request failed to decode, without echoing its value.
enum DecodingErrorText {
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "body" : text)
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])): missing"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)): expected \(type), found null"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "body is not valid JSON" : "\(path(context.codingPath)): invalid value"
        @unknown default: return "body does not decode"
        }
    }
}
