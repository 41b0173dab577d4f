/// `Waas/ListAccess {walletId, page?, type?, includeRevoked?}` -> `{credentials, page?}`.
public struct ListAccessRequest: Codable, Hashable, Sendable {
    public var walletId: String
    public var page: Page?
    public var type: CredentialType?
    /// walletops extension (docs/protocol.md): `true` lists revoked grants too, each with its `revokedAt`,
    /// for reports. Absent (the OMS shape) or false: revoked grants never appear. A core that does not know
    /// the field ignores it and lists live grants only.
    public var includeRevoked: Bool?
    public init(walletId: String, page: Page? = nil, type: CredentialType? = nil, includeRevoked: Bool? = nil) {
        self.walletId = walletId
        self.page = page
        self.type = type
        self.includeRevoked = includeRevoked
    }
}

public struct ListAccessResponse: Codable, Hashable, Sendable {
    public var credentials: [CredentialInfo]
    public var page: Page?
    public init(credentials: [CredentialInfo], page: Page? = nil) {
        self.credentials = credentials
        self.page = page
    }
}

/// `Waas/RevokeAccess {targetCredentialId, walletId, sessionId?}` -> `{ok}`.
public struct RevokeAccessRequest: Codable, Hashable, Sendable {
    public var targetCredentialId: String
    public var walletId: String
    public var sessionId: String?
    public init(targetCredentialId: String, walletId: String, sessionId: String? = nil) {
        self.targetCredentialId = targetCredentialId
        self.walletId = walletId
        self.sessionId = sessionId
    }
}

/// `Waas/RegisterCredential {lifetime, metadata}` -> `{credentialId}`.
public struct RegisterCredentialRequest: Codable, Hashable, Sendable {
    public var lifetime: Int
    public var metadata: CredentialMetadata
    public init(lifetime: Int, metadata: CredentialMetadata) {
        self.lifetime = lifetime
        self.metadata = metadata
    }
}

public struct RegisterCredentialResponse: Codable, Hashable, Sendable {
    public var credentialId: String
    public init(credentialId: String) { self.credentialId = credentialId }
}

/// `Waas/RevokeCredential {credentialId}` -> `{ok}`.
public struct RevokeCredentialRequest: Codable, Hashable, Sendable {
    public var credentialId: String
    public init(credentialId: String) { self.credentialId = credentialId }
}

/// `Waas/AuthorizeRemoteAccess` -> `{sessionId, expiry}`.
public struct AuthorizeRemoteAccessRequest: Codable, Hashable, Sendable {
    public var credentialId: String
    public var walletId: String
    public var grants: [Grant]
    /// RFC 3339 UTC; capped at the remote credential's expiry.
    public var expiry: String
    /// The chain id as a decimal string.
    public var chainId: String
    public var sessionId: String?
    public init(
        credentialId: String, walletId: String, grants: [Grant], expiry: String, chainId: String,
        sessionId: String? = nil
    ) {
        self.credentialId = credentialId
        self.walletId = walletId
        self.grants = grants
        self.expiry = expiry
        self.chainId = chainId
        self.sessionId = sessionId
    }

    private enum CodingKeys: String, CodingKey { case credentialId, walletId, grants, expiry, chainId, sessionId }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        credentialId = try container.decode(String.self, forKey: .credentialId)
        walletId = try container.decode(String.self, forKey: .walletId)
        grants = try container.decodeGrants(forKey: .grants)
        expiry = try container.decode(String.self, forKey: .expiry)
        chainId = try container.decode(String.self, forKey: .chainId)
        sessionId = try container.decodeIfPresent(String.self, forKey: .sessionId)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(credentialId, forKey: .credentialId)
        try container.encode(walletId, forKey: .walletId)
        try container.encodeGrants(grants, forKey: .grants)
        try container.encode(expiry, forKey: .expiry)
        try container.encode(chainId, forKey: .chainId)
        try container.encodeIfPresent(sessionId, forKey: .sessionId)
    }
}

public struct AuthorizeRemoteAccessResponse: Codable, Hashable, Sendable {
    public var sessionId: String
    /// The effective expiry after the cap.
    public var expiry: String
    public init(sessionId: String, expiry: String) {
        self.sessionId = sessionId
        self.expiry = expiry
    }
}

/// A remote smart session.
public struct RemoteSession: Codable, Hashable, Sendable {
    public var sessionId: String
    public var walletId: String
    public var signerAddress: String
    public var grants: [Grant]
    public var chainId: String
    public var expiresAt: String
    /// walletops extension: when the session was revoked (RFC 3339 UTC); only in answers to an owner's
    /// `includeRevoked` request, absent for a live session.
    public var revokedAt: String?
    /// walletops extension, in the owner's ListSessions with `includeDetails`: the remote credential's
    /// app metadata and the wallet's address and reference, so a report needs no read per wallet.
    public var metadata: CredentialMetadata?
    public var walletAddress: String?
    public var walletReference: String?
    public init(
        sessionId: String, walletId: String, signerAddress: String, grants: [Grant], chainId: String, expiresAt: String,
        revokedAt: String? = nil
    ) {
        self.sessionId = sessionId
        self.walletId = walletId
        self.signerAddress = signerAddress
        self.grants = grants
        self.chainId = chainId
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

    private enum CodingKeys: String, CodingKey {
        case sessionId, walletId, signerAddress, grants, chainId, expiresAt, revokedAt, metadata, walletAddress
        case walletReference
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sessionId = try container.decode(String.self, forKey: .sessionId)
        walletId = try container.decode(String.self, forKey: .walletId)
        signerAddress = try container.decode(String.self, forKey: .signerAddress)
        grants = try container.decodeGrants(forKey: .grants)
        chainId = try container.decode(String.self, forKey: .chainId)
        expiresAt = try container.decode(String.self, forKey: .expiresAt)
        revokedAt = try container.decodeIfPresent(String.self, forKey: .revokedAt)
        metadata = try container.decodeIfPresent(CredentialMetadata.self, forKey: .metadata)
        walletAddress = try container.decodeIfPresent(String.self, forKey: .walletAddress)
        walletReference = try container.decodeIfPresent(String.self, forKey: .walletReference)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sessionId, forKey: .sessionId)
        try container.encode(walletId, forKey: .walletId)
        try container.encode(signerAddress, forKey: .signerAddress)
        try container.encodeGrants(grants, forKey: .grants)
        try container.encode(chainId, forKey: .chainId)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encodeIfPresent(revokedAt, forKey: .revokedAt)
        try container.encodeIfPresent(metadata, forKey: .metadata)
        try container.encodeIfPresent(walletAddress, forKey: .walletAddress)
        try container.encodeIfPresent(walletReference, forKey: .walletReference)
    }
}

/// `Waas/GetSession {sessionId, includeRevoked?}` -> `{session}`.
public struct GetSessionRequest: Codable, Hashable, Sendable {
    public var sessionId: String
    /// walletops extension: `true` lets the wallet's owner read a revoked session (with its `revokedAt`);
    /// a remote credential never sees a revoked session.
    public var includeRevoked: Bool?
    public init(sessionId: String, includeRevoked: Bool? = nil) {
        self.sessionId = sessionId
        self.includeRevoked = includeRevoked
    }
}

public struct GetSessionResponse: Codable, Hashable, Sendable {
    public var session: RemoteSession
    public init(session: RemoteSession) { self.session = session }
}

/// `Waas/ListSessions {page?, includeRevoked?, includeDetails?}` -> `{sessions, page?}`: a remote
/// credential sees only its own sessions; the owner, those on its account's wallets.
public struct ListSessionsRequest: Codable, Hashable, Sendable {
    public var page: Page?
    /// walletops extension: `true` lets the owner list revoked sessions too (each with its `revokedAt`).
    public var includeRevoked: Bool?
    /// walletops extension: `true` adds each session's `metadata`, `walletAddress` and `walletReference`
    /// for the owner (a report of the account in pages, without a read per wallet).
    public var includeDetails: Bool?
    public init(page: Page? = nil, includeRevoked: Bool? = nil, includeDetails: Bool? = nil) {
        self.page = page
        self.includeRevoked = includeRevoked
        self.includeDetails = includeDetails
    }
}

public struct ListSessionsResponse: Codable, Hashable, Sendable {
    public var sessions: [RemoteSession]
    public var page: Page?
    public init(sessions: [RemoteSession], page: Page? = nil) {
        self.sessions = sessions
        self.page = page
    }
}

/// `Waas/GetSessionUsage {sessionId, network, includeRevoked?, since?, until?}` -> `{entries}`.
public struct GetSessionUsageRequest: Codable, Hashable, Sendable {
    public var sessionId: String
    /// The chain id as a decimal string.
    public var network: String
    /// walletops extension: `true` lets the wallet's owner read what a revoked session spent.
    public var includeRevoked: Bool?
    /// walletops extension: the period's start (RFC 3339, inclusive); with `until`, asks for `usedInPeriod`.
    public var since: String?
    /// walletops extension: the period's end (RFC 3339, exclusive).
    public var until: String?
    public init(
        sessionId: String, network: String, includeRevoked: Bool? = nil, since: String? = nil, until: String? = nil
    ) {
        self.sessionId = sessionId
        self.network = network
        self.includeRevoked = includeRevoked
        self.since = since
        self.until = until
    }
}

/// One grant's spending: `used` is an exact decimal ("0" when nothing was spent).
public struct UsageEntry: Codable, Hashable, Sendable {
    public var grant: Grant
    public var used: String?
    public var remaining: String?
    /// walletops extension: what the grant paid within the request's `since`/`until` (executed
    /// transfers); absent when no period was asked, or from a core without the extension.
    public var usedInPeriod: String?
    public init(grant: Grant, used: String? = nil, remaining: String? = nil, usedInPeriod: String? = nil) {
        self.grant = grant
        self.used = used
        self.remaining = remaining
        self.usedInPeriod = usedInPeriod
    }
}

public struct GetSessionUsageResponse: Codable, Hashable, Sendable {
    public var entries: [UsageEntry]
    public init(entries: [UsageEntry]) { self.entries = entries }
}
