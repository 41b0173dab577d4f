/// An authorized remote smart session.
public struct RemoteAccessAuthorization: Hashable, Sendable {
    /// The session id.
    public let sessionId: String
    /// The effective expiry (RFC 3339 UTC), capped at the remote credential's expiry.
    public let expiresAt: String
}

/// What a remote smart session has spent, per grant.
public struct RemoteAccessUsage: Hashable, Sendable {
    /// The session.
    public let sessionId: String
    /// The network the usage is counted on.
    public let network: Network
    /// One entry per grant of the session: `used` (and `remaining`) as exact decimals.
    public let entries: [UsageEntry]
}
