import Foundation
import OMSProtocol

/// Completed-session metadata: the active wallet, when the session expires, and how it was
/// authenticated. Empty (all nil) when no session is active.
///
/// The request-signing credential's private key is never part of this value: it lives apart, in the
/// storage scope's encrypted key file (docs/sdk.md "Credential key").
public struct OMSWalletSessionState: Hashable, Sendable, Codable {
    /// The active wallet's address.
    public var walletAddress: String?
    /// When the session's credential expires (the service's time; the SDK stops using it 30 s earlier).
    public var expiresAt: Date?
    /// How the session was authenticated.
    public var auth: OMSWalletAuthMetadata?
    /// The active wallet's id.
    public var walletId: String?
    /// The active wallet's type.
    public var walletType: WalletType?
    /// Where the active wallet's key came from.
    public var keyOrigin: KeyOrigin?

    /// A session state; all nil is no session.
    public init(
        walletAddress: String? = nil, expiresAt: Date? = nil, auth: OMSWalletAuthMetadata? = nil,
        walletId: String? = nil, walletType: WalletType? = nil, keyOrigin: KeyOrigin? = nil
    ) {
        self.walletAddress = walletAddress
        self.expiresAt = expiresAt
        self.auth = auth
        self.walletId = walletId
        self.walletType = walletType
        self.keyOrigin = keyOrigin
    }

    /// No active session.
    public static let empty = OMSWalletSessionState()

}

/// How a session was authenticated. For OIDC: the flow (`.idToken` or `.redirect`), the issuer,
/// optional provider details, and an email when OMS returned one.
public struct OMSWalletAuthMetadata: Hashable, Sendable, Codable {
    /// The OIDC flow that produced the ID token.
    public enum Method: String, Hashable, Sendable, Codable {
        /// The app supplied an ID token (`signIn(idToken:)`).
        case idToken
        /// A redirect (authorization-code) flow; the Linux SDK has none yet, but a stored session may say so.
        case redirect
    }

    /// Details of the identity provider, when known.
    public struct Provider: Hashable, Sendable, Codable {
        /// The ID token's audience (the app's client id at the provider).
        public var audience: String?
        /// The subject the provider named.
        public var subject: String?
        /// Provider details.
        public init(audience: String? = nil, subject: String? = nil) {
            self.audience = audience
            self.subject = subject
        }
    }

    /// The OIDC flow.
    public var method: Method
    /// The OIDC issuer (`iss`) of the identity.
    public var issuer: String
    /// The provider details, when known.
    public var provider: Provider?
    /// The identity's verified email, when OMS returned one.
    public var email: String?

    /// Auth metadata.
    public init(method: Method, issuer: String, provider: Provider? = nil, email: String? = nil) {
        self.method = method
        self.issuer = issuer
        self.provider = provider
        self.email = email
    }
}
