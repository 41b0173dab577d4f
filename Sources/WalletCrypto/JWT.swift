import Foundation

/// A JSON Web Token signed with ES256 ([RFC 7519](https://www.rfc-editor.org/rfc/rfc7519)).
///
/// `encode` writes the header `{"alg":"ES256","typ":"JWT","kid":...}` and the claims in the order
/// given. `verify` checks, in order: the shape, `alg` (ES256 only; `none` refused), the key by
/// `kid` in a JWK Set, the signature, then `iss`, `aud` (a string or an array containing the
/// expected audience), `exp` and `nbf` with a leeway.
public struct JWT: Sendable, Hashable {
    /// The signed envelope.
    public let jws: JWS
    /// The claims, in the order they were written.
    public let claims: JSONObject

    /// What `verify` requires of a token.
    public struct Validation: Sendable, Hashable {
        /// The `iss` required; nil skips the check.
        public var issuer: String?
        /// The audience that `aud` must name; nil skips the check.
        public var audience: String?
        /// The current time.
        public var now: Date
        /// Clock skew tolerated for `exp` and `nbf`, in seconds.
        public var leeway: TimeInterval
        /// Whether a token without `exp` is refused.
        public var requireExpiration: Bool

        /// Checks to run at `now`.
        public init(
            issuer: String?, audience: String?, now: Date, leeway: TimeInterval = 60, requireExpiration: Bool = true
        ) {
            self.issuer = issuer
            self.audience = audience
            self.now = now
            self.leeway = leeway
            self.requireExpiration = requireExpiration
        }
    }

    /// Signs `claims` with ES256 under `kid` and returns the compact token.
    /// - Throws: `CryptoError` if signing fails.
    public static func encode(claims: JSONObject, privateKey: P256.Signing.PrivateKey, keyID: String?) throws -> String
    {
        var header: JSONObject = ["typ": "JWT"]
        if let keyID { header["kid"] = .string(keyID) }
        return try JWS.signES256(
            header: header, payload: JSONValue.object(claims).serializedBytes(), privateKey: privateKey
        )
        .compact
    }

    /// Parses a token without verifying it: for reading the header or claims before choosing keys.
    /// - Throws: `JOSEError` `.malformed` if the payload is not a JSON object.
    public static func decodeUnverified(_ token: String) throws(JOSEError) -> JWT {
        let jws = try JWS(compact: token)
        do {
            guard let claims = try JSONValue.parse(jws.payload, maxDepth: 32).objectValue else {
                throw JOSEError(.malformed, "JWT claims are not a JSON object")
            }
            return JWT(jws: jws, claims: claims)
        } catch let error as JOSEError {
            throw error
        } catch {
            throw JOSEError(.malformed, "JWT claims: \(error)")
        }
    }

    private init(jws: JWS, claims: JSONObject) {
        self.jws = jws
        self.claims = claims
    }

    /// Verifies `token` against `keys` and `validation`.
    ///
    /// A token without `kid` is accepted only when the set holds exactly one key. A key whose own
    /// `alg` or `use` says otherwise (not ES256, not `sig`) is not used.
    /// - Throws: `JOSEError` with a code per failed check (see `JOSEError.Code`).
    public static func verify(_ token: String, keys: JWKSet, validation: Validation) throws(JOSEError) -> JWT {
        let jwt = try decodeUnverified(token)
        try jwt.jws.checkAlgorithm()
        let jwk = try keys.verificationKey(kid: jwt.jws.keyID, algorithm: "ES256")
        try jwt.jws.verify(publicKey: try jwk.p256PublicKey())
        try jwt.checkClaims(validation)
        return jwt
    }

    func checkClaims(_ validation: Validation) throws(JOSEError) {
        if let expected = validation.issuer {
            guard let claim = claims["iss"] else { throw JOSEError(.missingClaim, "JWT has no iss") }
            guard claim.stringValue == expected else {
                throw JOSEError(.wrongIssuer, "JWT iss is not the expected issuer")
            }
        }
        if let expected = validation.audience {
            guard let audiences = try audience else { throw JOSEError(.missingClaim, "JWT has no aud") }
            guard audiences.contains(expected) else {
                throw JOSEError(.wrongAudience, "JWT aud does not include the expected audience")
            }
        }
        let now = validation.now.timeIntervalSince1970
        if let exp = try numericDate("exp") {
            guard now < exp + validation.leeway else { throw JOSEError(.expired, "JWT expired at \(exp)") }
        } else if validation.requireExpiration {
            throw JOSEError(.missingClaim, "JWT has no exp")
        }
        if let nbf = try numericDate("nbf") {
            guard now + validation.leeway >= nbf else { throw JOSEError(.notYetValid, "JWT not valid before \(nbf)") }
        }
        _ = try numericDate("iat")
    }

    private func numericDate(_ name: String) throws(JOSEError) -> TimeInterval? {
        guard let value = claims[name] else { return nil }
        guard let seconds = value.doubleValue, seconds.isFinite else {
            throw JOSEError(.invalidClaim, "JWT \(name) is not a number")
        }
        return seconds
    }

    /// `iss`, if it is a string.
    public var issuer: String? { claims["iss"]?.stringValue }
    /// `sub`, if it is a string.
    public var subject: String? { claims["sub"]?.stringValue }
    /// `aud` as a list (a single string becomes one element); nil when absent.
    /// - Throws: `JOSEError` `.invalidClaim` when `aud` is neither a string nor an array of strings.
    public var audience: [String]? {
        get throws(JOSEError) {
            guard let value = claims["aud"] else { return nil }
            if let single = value.stringValue { return [single] }
            guard let array = value.arrayValue else {
                throw JOSEError(.invalidClaim, "JWT aud is not a string or array")
            }
            var result: [String] = []
            for element in array {
                guard let string = element.stringValue else {
                    throw JOSEError(.invalidClaim, "JWT aud holds a non-string")
                }
                result.append(string)
            }
            return result
        }
    }
    /// `exp` as a date, if it is a number.
    public var expiration: Date? { claims["exp"]?.doubleValue.map { Date(timeIntervalSince1970: $0) } }
    /// `nbf` as a date, if it is a number.
    public var notBefore: Date? { claims["nbf"]?.doubleValue.map { Date(timeIntervalSince1970: $0) } }
    /// `iat` as a date, if it is a number.
    public var issuedAt: Date? { claims["iat"]?.doubleValue.map { Date(timeIntervalSince1970: $0) } }
}

extension JWKSet {
    /// The key to verify a token signed with `algorithm` that names `kid`: the key with that kid, or the
    /// set's only key when the token names none.
    ///
    /// - Throws: `JOSEError` `.unknownKey` when there is no such key, or when the key's own `alg` or `use`
    ///   says otherwise (not `algorithm`, not `sig`).
    func verificationKey(kid: String?, algorithm: String) throws(JOSEError) -> JWK {
        let jwk: JWK
        if let kid {
            guard let match = key(kid: kid) else { throw JOSEError(.unknownKey, "no key with kid \(kid)") }
            jwk = match
        } else {
            guard keys.count == 1 else {
                throw JOSEError(.unknownKey, "token has no kid and the key set holds \(keys.count) keys")
            }
            jwk = keys[0]
        }
        if let alg = jwk.alg, alg != algorithm { throw JOSEError(.unknownKey, "key \(jwk.kid ?? "-") is for \(alg)") }
        if let use = jwk.use, use != "sig" { throw JOSEError(.unknownKey, "key \(jwk.kid ?? "-") is for \(use)") }
        return jwk
    }
}
