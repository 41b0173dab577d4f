import Foundation
import OMSProtocol
import SQLiteKit
import Synchronization
import WalletCrypto

/// Issues wallet ID tokens (ES256 JWTs) and publishes the keys that verify them (the issuer's JWKS).
///
/// Signing keys are P-256 keys sealed under the KEK in `signing_keys`; the newest unretired key signs,
/// and the JWKS lists it and the key it replaced, so tokens issued just before a rotation still verify.
/// `kid` is the key's RFC 7638 thumbprint.
final class TokenIssuer: Sendable {
    let custody: KeyCustody
    /// Opened signing keys by kid, so a token costs one signature, not a decryption as well.
    private let openedKeys = Mutex<[String: P256.Signing.PrivateKey]>([:])

    init(custody: KeyCustody) { self.custody = custody }

    /// Creates and activates a new signing key; the previous active key is retired but still published.
    @discardableResult
    func rotate(_ db: SQLiteDatabase, now: Int64) throws -> String {
        let key = try P256.Signing.PrivateKey()
        let kid = try JWK(p256PublicKey: key.publicKey, kid: nil, alg: nil, use: nil).thumbprint()
        let published = JWK(p256PublicKey: key.publicKey, kid: kid, alg: "ES256", use: "sig")
        let sealed = try custody.seal(key.rawRepresentation, for: "signing-key:\(kid)")
        try db.execute("UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL", [.integer(now)])
        try db.execute(
            "INSERT INTO signing_keys(kid, sealed_key, public_jwk, created_at) VALUES (?, ?, ?, ?)",
            [.text(kid), .blob(sealed), .text(published.json.serialized()), .integer(now)])
        return kid
    }

    /// The active signing key and its kid.
    func activeKey(_ db: SQLiteDatabase) throws -> (kid: String, key: P256.Signing.PrivateKey) {
        guard
            let row = try db.rows(
                "SELECT kid, sealed_key FROM signing_keys WHERE retired_at IS NULL ORDER BY rowid DESC LIMIT 1"
            ).first, let kid = row[0].text, let sealed = row[1].bytes
        else { throw WaasError(.internal, "no active ID-token signing key: run 'walletops core init'") }
        if let key = openedKeys.withLock({ $0[kid] }) { return (kid, key) }
        let key = try P256.Signing.PrivateKey(rawRepresentation: try custody.open(sealed, for: "signing-key:\(kid)"))
        openedKeys.withLock { $0[kid] = key }
        return (kid, key)
    }

    /// The published keys: the active one first, then the one it replaced.
    func jwks(_ db: SQLiteDatabase) throws -> [JWKSKey] {
        let rows = try db.rows(
            // Insertion order, not times: two rotations within one second have equal timestamps.
            "SELECT public_jwk FROM signing_keys ORDER BY retired_at IS NOT NULL, rowid DESC LIMIT 2")
        return try rows.compactMap { row in
            guard let text = row[0].text else { return nil }
            let jwk = try JWK(jsonString: text)
            return JWKSKey(
                alg: jwk.alg ?? "ES256", crv: jwk.crv ?? "P-256", kid: jwk.kid ?? "", kty: jwk.kty,
                use: jwk.use ?? "sig",
                x: jwk.x ?? "", y: jwk.y ?? "")
        }
    }

    /// Claims a client may not set: the registered ones, `email`, and the `wallet_` namespace.
    static let reservedClaims: Set<String> = ["iss", "sub", "aud", "exp", "nbf", "iat", "jti", "email"]
    static let maxCustomClaimBytes = 4096

    /// Checks client-supplied claims (OMS-REFERENCE "Our decisions": no registered names, no `wallet_`
    /// prefix, at most 4 KiB serialized).
    static func validateCustomClaims(_ claims: [String: JSONValue]) throws(WaasError) {
        for name in claims.keys.sorted() {
            if name.isEmpty { throw WaasError(.invalidRequest, "customClaims: empty claim name") }
            if reservedClaims.contains(name) || name.hasPrefix("wallet_") {
                throw WaasError(.invalidRequest, "customClaims.\(name): reserved claim name")
            }
        }
        let size = JSONValue.object(sorted(claims)).serializedBytes().count
        guard size <= maxCustomClaimBytes else {
            throw WaasError(.invalidRequest, "customClaims: \(size) bytes serialized, at most \(maxCustomClaimBytes)")
        }
    }

    private static func sorted(_ claims: [String: JSONValue]) -> JSONObject {
        JSONObject(claims.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Signs an ID token for a wallet.
    func idToken(
        key: (kid: String, key: P256.Signing.PrivateKey), issuer: String, audience: String, wallet: WalletRecord,
        email: String?, issuedAt: Int64, expiresAt: Int64, customClaims: [String: JSONValue]
    ) throws -> String {
        var claims: JSONObject = [
            "iss": .string(issuer), "sub": .string(wallet.id), "aud": .string(audience), "exp": .int(expiresAt),
            "iat": .int(issuedAt), "jti": .string(Identifier.make("jti")),
            "wallet_address": .string(wallet.address), "wallet_type": .string(wallet.type.rawValue),
        ]
        if let email { claims["email"] = .string(email) }
        for (name, value) in Self.sorted(customClaims) { claims[name] = value }
        return try JWT.encode(claims: claims, privateKey: key.key, keyID: key.kid)
    }
}
