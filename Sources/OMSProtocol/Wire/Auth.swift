/// `Waas/CommitVerifier`: starts a sign-in. For OIDC id-token, `handle` is base64url(SHA-256(idToken))
/// and `metadata` carries iss, aud and exp; for email OTP, `handle` is the address.
public struct CommitVerifierRequest: Codable, Hashable, Sendable {
    public var identityType: IdentityType
    public var authMode: AuthMode
    public var metadata: [String: String]
    /// Optional in the schema: for an email code the address may come in `metadata.email` instead.
    public var handle: String?
    public init(identityType: IdentityType, authMode: AuthMode, metadata: [String: String], handle: String?) {
        self.identityType = identityType
        self.authMode = authMode
        self.metadata = metadata
        self.handle = handle
    }
}

public struct CommitVerifierResponse: Codable, Hashable, Sendable {
    /// The commitment CompleteAuth names.
    public var verifier: String
    /// For OTP: mixed into the answer, base64url(SHA-256(challenge + code)).
    public var challenge: String?
    /// RFC 3339; the commitment is single use and expires.
    public var expiresAt: String?
    public init(verifier: String, challenge: String? = nil, expiresAt: String? = nil) {
        self.verifier = verifier
        self.challenge = challenge
        self.expiresAt = expiresAt
    }
}

/// `Waas/CompleteAuth`: finishes a sign-in and registers the signing credential.
public struct CompleteAuthRequest: Codable, Hashable, Sendable {
    public var identityType: IdentityType
    public var authMode: AuthMode
    public var verifier: String
    public var answer: String
    /// Session lifetime in seconds: default 604,800, allowed 1...2,592,000.
    public var lifetime: Int?
    public init(identityType: IdentityType, authMode: AuthMode, verifier: String, answer: String, lifetime: Int? = nil)
    {
        self.identityType = identityType
        self.authMode = authMode
        self.verifier = verifier
        self.answer = answer
        self.lifetime = lifetime
    }
}

/// The identity that signed in.
public struct Identity: Codable, Hashable, Sendable {
    public var type: IdentityType
    public var iss: String?
    public var sub: String
    public var email: String?
    public init(type: IdentityType, iss: String? = nil, sub: String, email: String? = nil) {
        self.type = type
        self.iss = iss
        self.sub = sub
        self.email = email
    }
}

public struct CompleteAuthResponse: Codable, Hashable, Sendable {
    public var identity: Identity
    public var wallets: [Wallet]
    public var page: Page?
    public var email: String?
    public var credential: CredentialInfo
    public init(
        identity: Identity, wallets: [Wallet], page: Page? = nil, email: String? = nil, credential: CredentialInfo
    ) {
        self.identity = identity
        self.wallets = wallets
        self.page = page
        self.email = email
        self.credential = credential
    }
}
