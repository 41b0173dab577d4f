/// The documents served under `/.well-known/`: the token issuer's keys and its OpenID discovery document.
public enum WellKnownDocument: String, Sendable, CaseIterable {
    /// `GET /.well-known/jwks.json`: the JSON Web Key Set ([RFC 7517 §5](https://www.rfc-editor.org/rfc/rfc7517#section-5)).
    case jwks = "/.well-known/jwks.json"
    /// `GET /.well-known/openid-configuration`
    /// ([OpenID Connect Discovery §4](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfig)).
    case openIDConfiguration = "/.well-known/openid-configuration"

    /// The request path it is served at.
    public var path: String { rawValue }
}

/// The reply for one well-known document.
public struct WellKnownResponse: Sendable {
    /// The HTTP status, 200 for a published document.
    public var status: Int
    /// The `Content-Type` header, `application/json` unless told.
    public var contentType: String
    /// The exact body bytes.
    public var body: [UInt8]

    /// A reply with this status, type and body.
    public init(status: Int = 200, contentType: String = "application/json", body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}

/// What answers `GET /.well-known/...`; the token issuer implements it.
public protocol WellKnownProvider: Sendable {
    /// The document's reply, or nil when this service does not publish it (answered 404).
    func response(for document: WellKnownDocument) async -> WellKnownResponse?
}

/// A `WellKnownProvider` made from a closure.
public struct WellKnownDocuments: WellKnownProvider {
    private let body: @Sendable (WellKnownDocument) async -> WellKnownResponse?

    /// Calls `body` for each request; nil answers 404.
    public init(_ body: @escaping @Sendable (WellKnownDocument) async -> WellKnownResponse?) {
        self.body = body
    }

    /// The closure's reply for this document.
    public func response(for document: WellKnownDocument) async -> WellKnownResponse? {
        await body(document)
    }
}
