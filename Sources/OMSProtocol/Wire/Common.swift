/// A request for one page of a list: `page` is omitted when both fields are nil.
public struct Page: Codable, Hashable, Sendable {
    public var limit: Int?
    public var cursor: String?
    public init(limit: Int? = nil, cursor: String? = nil) {
        self.limit = limit
        self.cursor = cursor
    }
    /// `nil` when neither a limit nor a cursor is set, so the field is left out of the body.
    public static func optional(limit: Int?, cursor: String?) -> Page? {
        limit == nil && cursor == nil ? nil : Page(limit: limit, cursor: cursor)
    }
    /// Whether a reply's page says another page follows: a non-nil, non-blank cursor.
    public var hasMore: Bool {
        guard let cursor else { return false }
        return !cursor.allSatisfy(\.isWhitespace)
    }
}

/// A wallet as the service returns it.
public struct Wallet: Codable, Hashable, Sendable {
    public var id: String
    public var address: String
    public var networkFamily: NetworkFamily
    public var keyOrigin: KeyOrigin
    public var type: WalletType?
    public var reference: String?

    public init(
        id: String, address: String, networkFamily: NetworkFamily, keyOrigin: KeyOrigin, type: WalletType? = nil,
        reference: String? = nil
    ) {
        self.id = id
        self.address = address
        self.networkFamily = networkFamily
        self.keyOrigin = keyOrigin
        self.type = type
        self.reference = reference
    }

    /// The wallet type, from `type` when sent, else from the network family.
    public var walletType: WalletType { type ?? networkFamily.walletType }
}

/// Display metadata of a remote credential (an app's backend).
public struct CredentialMetadata: Codable, Hashable, Sendable {
    public var appUrl: String
    public var appName: String
    public var appLogoUrl: String
    public var custom: [String: String]

    public init(appUrl: String = "", appName: String, appLogoUrl: String = "", custom: [String: String] = [:]) {
        self.appUrl = appUrl
        self.appName = appName
        self.appLogoUrl = appLogoUrl
        self.custom = custom
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appUrl = try c.decodeIfPresent(String.self, forKey: .appUrl) ?? ""
        appName = try c.decode(String.self, forKey: .appName)
        appLogoUrl = try c.decodeIfPresent(String.self, forKey: .appLogoUrl) ?? ""
        custom = try c.decodeIfPresent([String: String].self, forKey: .custom) ?? [:]
    }
}

/// A native-token transfer allowance: cumulative `limit` in wei to `to`.
public struct NativeTransferGrant: Codable, Hashable, Sendable {
    public var to: String
    public var limit: String
    public init(to: String, limit: String) {
        self.to = to
        self.limit = limit
    }
}

/// An ERC-20 transfer allowance; without `to` one allowance is shared across receivers.
public struct ERC20TransferGrant: Codable, Hashable, Sendable {
    public var token: String
    public var to: String?
    public var limit: String
    public var cumulative: Bool?
    public init(token: String, to: String? = nil, limit: String, cumulative: Bool? = nil) {
        self.token = token
        self.to = to
        self.limit = limit
        self.cumulative = cumulative
    }
}

/// One permission of a remote session.
public struct Grant: Codable, Hashable, Sendable {
    public var kind: GrantKind
    public var nativeTransfer: NativeTransferGrant?
    public var erc20Transfer: ERC20TransferGrant?

    public init(kind: GrantKind, nativeTransfer: NativeTransferGrant? = nil, erc20Transfer: ERC20TransferGrant? = nil) {
        self.kind = kind
        self.nativeTransfer = nativeTransfer
        self.erc20Transfer = erc20Transfer
    }

    public static func nativeTransfer(to: String, limit: String) -> Grant {
        Grant(kind: .nativeTransfer, nativeTransfer: NativeTransferGrant(to: to, limit: limit))
    }

    public static func erc20Transfer(token: String, to: String? = nil, limit: String, cumulative: Bool? = nil) -> Grant
    {
        Grant(
            kind: .erc20Transfer,
            erc20Transfer: ERC20TransferGrant(token: token, to: to, limit: limit, cumulative: cumulative))
    }
}

/// `Grants {entries}`: how the official schema wraps a list of grants wherever it travels
/// (AuthorizeRemoteAccess, CredentialInfo, RemoteSession).
public struct Grants: Codable, Hashable, Sendable {
    public var entries: [Grant]
    public init(entries: [Grant]) { self.entries = entries }
}

extension KeyedDecodingContainer {
    /// Grants as the schema sends them (`{entries: [...]}`), the only form accepted.
    func decodeGrants(forKey key: Key) throws -> [Grant] {
        try decode(Grants.self, forKey: key).entries
    }

    func decodeGrantsIfPresent(forKey key: Key) throws -> [Grant]? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeGrants(forKey: key)
    }
}

extension KeyedEncodingContainer {
    /// Grants always leave wrapped, as the schema has them.
    mutating func encodeGrants(_ grants: [Grant]?, forKey key: Key) throws {
        guard let grants else { return }
        try encode(Grants(entries: grants), forKey: key)
    }
}

/// A credential that may act for a wallet: a direct credential, or a remote one bound to a session.
public struct CredentialInfo: Codable, Hashable, Sendable {
    public var credentialId: String
    public var sessionId: String?
    public var type: CredentialType
    public var metadata: CredentialMetadata?
    public var grants: [Grant]?
    /// RFC 3339 UTC.
    public var expiresAt: String
    public var isCaller: Bool
    /// walletops extension: when the grant was revoked (RFC 3339 UTC); present only in a ListAccess
    /// answer to `includeRevoked: true`, for a revoked grant.
    public var revokedAt: String?

    public init(
        credentialId: String, sessionId: String? = nil, type: CredentialType, metadata: CredentialMetadata? = nil,
        grants: [Grant]? = nil, expiresAt: String, isCaller: Bool, revokedAt: String? = nil
    ) {
        self.credentialId = credentialId
        self.sessionId = sessionId
        self.type = type
        self.metadata = metadata
        self.grants = grants
        self.expiresAt = expiresAt
        self.isCaller = isCaller
        self.revokedAt = revokedAt
    }

    private enum CodingKeys: String, CodingKey {
        case credentialId, sessionId, type, metadata, grants, expiresAt, isCaller, revokedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        credentialId = try container.decode(String.self, forKey: .credentialId)
        sessionId = try container.decodeIfPresent(String.self, forKey: .sessionId)
        type = try container.decode(CredentialType.self, forKey: .type)
        metadata = try container.decodeIfPresent(CredentialMetadata.self, forKey: .metadata)
        grants = try container.decodeGrantsIfPresent(forKey: .grants)
        expiresAt = try container.decode(String.self, forKey: .expiresAt)
        isCaller = try container.decode(Bool.self, forKey: .isCaller)
        revokedAt = try container.decodeIfPresent(String.self, forKey: .revokedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(credentialId, forKey: .credentialId)
        try container.encodeIfPresent(sessionId, forKey: .sessionId)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(metadata, forKey: .metadata)
        try container.encodeGrants(grants, forKey: .grants)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(isCaller, forKey: .isCaller)
        try container.encodeIfPresent(revokedAt, forKey: .revokedAt)
    }
}

/// An empty JSON object, for methods with no parameters or no result (`{}`).
public struct Empty: Codable, Hashable, Sendable {
    public init() {}
}

/// `{ok}` replies.
public struct OKResponse: Codable, Hashable, Sendable {
    public var ok: Bool
    public init(ok: Bool = true) { self.ok = ok }
}
