import Foundation
import WalletCrypto

/// An app-owned OIDC issuer that the project trusts (`walletops core trust-issuer`): it mints
/// short-lived ID tokens for its own users, signed with a key read from a PEM file, so a job can sign
/// each user in on the user's behalf (the per-user mode of docs/jobs.md).
///
/// Tokens follow OpenID Connect Core 1.0 §2 (`iss`, `sub`, `aud`, `exp`, `iat`, plus a `jti`), signed
/// ES256 (an EC P-256 key) or RS256 (an RSA key of 2048 to 8192 bits) per RFC 7518 §3, with `kid` in the
/// header. The key never leaves this value: its description names the issuer, kid and algorithm only.
public struct AppIssuer: Sendable, CustomStringConvertible {
    /// The JOSE algorithm, from the key's type.
    public enum Algorithm: String, Sendable {
        /// ECDSA P-256 with SHA-256 (RFC 7518 §3.4).
        case es256 = "ES256"
        /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3).
        case rs256 = "RS256"
    }

    enum SigningKey: Sendable {
        case p256(P256.Signing.PrivateKey)
        case rsa(RSA.PrivateKey)
    }

    /// The tokens' `iss` (an URL string, exactly as the project trusts it).
    public let issuer: String
    /// The tokens' `aud` (the audience given to `core trust-issuer --audience`).
    public let audience: String
    /// The `kid` of the signing key, in the tokens' header and in ``jwks``.
    public let keyID: String
    let key: SigningKey

    /// The signing algorithm.
    public var algorithm: Algorithm {
        switch key {
        case .p256: .es256
        case .rsa: .rs256
        }
    }

    /// An issuer signing with the private key of the PEM file at `path` (PKCS#8, "BEGIN PRIVATE KEY", as
    /// `openssl genpkey` writes it).
    ///
    /// - Throws: `JobsError.invalidInput` naming the file (never its content) when it cannot be read or
    ///   holds no usable key.
    public init(issuer: String, audience: String, keyID: String, pemFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JobsError(.invalidInput, "cannot read the issuer's signing key file \(path)")
        }
        var bytes = [UInt8](data)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        try self.init(issuer: issuer, audience: audience, keyID: keyID, pem: bytes, source: path)
    }

    /// An issuer signing with the private key of `pem` (the bytes of a PEM file); `source` names it in errors.
    public init(issuer: String, audience: String, keyID: String, pem: [UInt8], source: String) throws {
        guard !issuer.isEmpty, !audience.isEmpty, !keyID.isEmpty else {
            throw JobsError(.invalidInput, "an app issuer needs an issuer, an audience and a kid")
        }
        self.issuer = issuer
        self.audience = audience
        self.keyID = keyID
        self.key = try Self.privateKey(pem: pem, source: source)
    }

    /// The private key of a PKCS#8 PEM: a P-256 key (ES256), else an RSA key (RS256).
    static func privateKey(pem: [UInt8], source: String) throws -> SigningKey {
        let der = try PEMBlock.decode(pem, label: "PRIVATE KEY", source: source)
        if let key = try? P256.Signing.PrivateKey(pkcs8DERRepresentation: der) { return .p256(key) }
        if let key = try? RSA.PrivateKey(pkcs8DERRepresentation: der) { return .rsa(key) }
        throw JobsError(
            .invalidInput,
            "\(source): the PRIVATE KEY is neither an EC P-256 key (ES256) nor an RSA key of 2048 to 8192 bits (RS256)")
    }

    /// The public JWK Set of this issuer (one key: `kid`, `alg`, `use: sig`), for `core trust-issuer`.
    public var jwks: JWKSet { JWKSet(keys: [Self.publicJWK(key, kid: keyID)]) }

    static func publicJWK(_ key: SigningKey, kid: String) -> JWK {
        switch key {
        case .p256(let key): return JWK(p256PublicKey: key.publicKey, kid: kid, alg: "ES256", use: "sig")
        case .rsa(let key): return rsaJWK(key.publicKey, kid: kid)
        }
    }

    static func rsaJWK(_ key: RSA.PublicKey, kid: String) -> JWK {
        JWK(rsaPublicKey: key, kid: kid, alg: "RS256", use: "sig")
    }

    /// The JWK Set of the public key in a PEM file: a private key (PKCS#8 "PRIVATE KEY", P-256 or RSA) or
    /// a public one ("PUBLIC KEY", SubjectPublicKeyInfo), under `kid`.
    public static func jwks(pem: [UInt8], kid: String, source: String) throws -> JWKSet {
        if let der = try? PEMBlock.decode(pem, label: "PUBLIC KEY", source: source) {
            let bytes = der.withUnsafeBytes { Array($0) }
            if let key = try? P256.Signing.PublicKey(derRepresentation: bytes) {
                return JWKSet(keys: [JWK(p256PublicKey: key, kid: kid, alg: "ES256", use: "sig")])
            }
            if let key = try? RSA.PublicKey(derRepresentation: bytes) {
                return JWKSet(keys: [rsaJWK(key, kid: kid)])
            }
            throw JobsError(.invalidInput, "\(source): the PUBLIC KEY is neither an EC P-256 nor an RSA key")
        }
        return JWKSet(keys: [publicJWK(try privateKey(pem: pem, source: source), kid: kid)])
    }

    /// A signed ID token for `subject`, valid from `now` for `lifetime` seconds (default 300: a few
    /// minutes, enough for one sign-in).
    public func idToken(subject: String, now: Int64, lifetime: Int64 = 300) throws -> String {
        guard !subject.isEmpty else { throw JobsError(.invalidInput, "an ID token needs a non-empty subject") }
        let claims: JSONObject = [
            "iss": .string(issuer), "sub": .string(subject), "aud": .string(audience), "iat": .int(now),
            "nbf": .int(now - 30), "exp": .int(now + lifetime),
            "jti": .string(UUID().uuidString.lowercased()),
        ]
        let header: JSONObject = ["alg": .string(algorithm.rawValue), "typ": "JWT", "kid": .string(keyID)]
        let payload = JSONValue.object(claims).serializedBytes()
        switch key {
        case .p256(let key):
            return try JWS.signES256(header: ["typ": "JWT", "kid": .string(keyID)], payload: payload, privateKey: key)
                .compact
        case .rsa(let key):
            let input =
                Base64URL.encode(JSONValue.object(header).serializedBytes()) + "." + Base64URL.encode(payload)
            return input + "." + Base64URL.encode(try key.signature(for: Array(input.utf8)))
        }
    }

    /// The issuer, kid and algorithm: never the key.
    public var description: String { "AppIssuer(\(issuer), kid \(keyID), \(algorithm.rawValue))" }
}
