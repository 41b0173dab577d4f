import Foundation
import OMSProtocol
import SQLiteKit
import WalletCrypto

/// OIDC issuers a project trusts for sign-in: each with the audience its tokens must carry and its JWKS.
/// `walletops core trust-issuer` adds one; a development project trusts the core's own dev issuer.
extension SQLiteDatabase {
    func trustIssuer(project: String, issuer: String, audience: String, jwks: JWKSet, now: Int64) throws {
        try execute(
            "INSERT INTO trusted_issuers(project_id, issuer, audience, jwks, added_at) VALUES (?, ?, ?, ?, ?) "
                + "ON CONFLICT(project_id, issuer, audience) DO UPDATE SET jwks = excluded.jwks",
            [.text(project), .text(issuer), .text(audience), .text(jwks.json.serialized()), .integer(now)])
    }

    /// The trusted (audience, JWKS) entries of an issuer in a project.
    func trustedIssuer(project: String, issuer: String) throws -> [(audience: String, jwks: JWKSet)] {
        try rows(
            "SELECT audience, jwks FROM trusted_issuers WHERE project_id = ? AND issuer = ?",
            [.text(project), .text(issuer)]
        ).compactMap { row in
            guard let audience = row[0].text, let text = row[1].text, let set = try? JWKSet(jsonString: text) else {
                return nil
            }
            return (audience, set)
        }
    }
}

/// The development OIDC issuer: a P-256 key sealed in the core's settings, trusted by default in a
/// development project, so `walletops login --dev --email E` can sign in without a real provider.
public struct DevIssuer: Sendable {
    /// The audience dev tokens carry.
    public static let audience = "walletops-dev"
    static let keySetting = "dev_issuer_key"

    /// `<core issuer>/dev`.
    public let issuer: String
    let key: P256.Signing.PrivateKey

    /// The JWKS a project trusts for this issuer.
    var jwks: JWKSet {
        JWKSet(keys: [JWK(p256PublicKey: key.publicKey, kid: "dev-1", alg: "ES256", use: "sig")])
    }

    /// Mints a short-lived ID token for `email` (verified), as a provider would after a login.
    public func idToken(email: String, now: Int64, lifetime: Int64 = 600) throws -> String {
        let claims: JSONObject = [
            "iss": .string(issuer), "sub": .string("dev|" + email.lowercased()), "aud": .string(Self.audience),
            "iat": .int(now), "exp": .int(now + lifetime), "email": .string(email.lowercased()),
            "email_verified": .bool(true),
        ]
        return try JWT.encode(claims: claims, privateKey: key, keyID: "dev-1")
    }

    static func load(_ db: SQLiteDatabase, custody: KeyCustody, coreIssuer: String) throws -> DevIssuer? {
        guard let text = try db.setting(keySetting), let sealed = Data(base64Encoded: text) else { return nil }
        let key = try P256.Signing.PrivateKey(rawRepresentation: try custody.open([UInt8](sealed), for: keySetting))
        return DevIssuer(issuer: coreIssuer + "/dev", key: key)
    }

    static func create(_ db: SQLiteDatabase, custody: KeyCustody, coreIssuer: String) throws -> DevIssuer {
        if let existing = try load(db, custody: custody, coreIssuer: coreIssuer) { return existing }
        let key = try P256.Signing.PrivateKey()
        let sealed = try custody.seal(key.rawRepresentation, for: keySetting)
        try db.setSetting(keySetting, Data(sealed).base64EncodedString())
        return DevIssuer(issuer: coreIssuer + "/dev", key: key)
    }
}
