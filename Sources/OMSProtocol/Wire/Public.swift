/// `WaasPublic/Status` -> `{ver, env, pcr0}`.
public struct StatusResponse: Codable, Hashable, Sendable {
    public var ver: String
    public var env: String
    public var pcr0: String
    public init(ver: String, env: String, pcr0: String) {
        self.ver = ver
        self.env = env
        self.pcr0 = pcr0
    }
}

/// One key of the issuer's JWKS as GetJWKS returns it.
public struct JWKSKey: Codable, Hashable, Sendable {
    public var alg: String
    public var crv: String
    public var kid: String
    public var kty: String
    public var use: String
    public var x: String
    public var y: String
    public init(
        alg: String = "ES256", crv: String = "P-256", kid: String, kty: String = "EC", use: String = "sig", x: String,
        y: String
    ) {
        self.alg = alg
        self.crv = crv
        self.kid = kid
        self.kty = kty
        self.use = use
        self.x = x
        self.y = y
    }
}

/// `WaasPublic/GetJWKS` -> `{keys}`.
public struct GetJWKSResponse: Codable, Hashable, Sendable {
    public var keys: [JWKSKey]
    public init(keys: [JWKSKey]) { self.keys = keys }
}

/// `WaasPublic/InspectCredential {scope, credentialId}` -> `{metadata}`.
public struct InspectCredentialRequest: Codable, Hashable, Sendable {
    public var scope: String
    public var credentialId: String
    public init(scope: String, credentialId: String) {
        self.scope = scope
        self.credentialId = credentialId
    }
}

public struct InspectCredentialResponse: Codable, Hashable, Sendable {
    public var metadata: CredentialMetadata
    public init(metadata: CredentialMetadata) { self.metadata = metadata }
}

/// `WaasPublic/GetTrustedAudiences {issuer}` -> `{audiences}` (a walletops extension, docs/protocol.md):
/// the audiences the project of the `Api-Key` trusts an OIDC issuer's ID tokens for, which is public
/// configuration, so a client checks its sign-in setup against an embedded and a served core alike.
public struct GetTrustedAudiencesRequest: Codable, Hashable, Sendable {
    public var issuer: String
    public init(issuer: String) { self.issuer = issuer }
}

/// The audiences, sorted; empty when the project does not trust the issuer.
public struct GetTrustedAudiencesResponse: Codable, Hashable, Sendable {
    public var audiences: [String]
    public init(audiences: [String]) { self.audiences = audiences }
}
