import Foundation

extension JWT {
    /// Verifies an OIDC provider's ID token signed with ES256 or RS256 (the two algorithms providers use),
    /// against a JWK Set, then checks the claims as `verify` does.
    ///
    /// The key is chosen by `kid` (or the only key of the set) and must match the token's algorithm:
    /// an EC P-256 key for ES256, an RSA key of at least 2048 bits for RS256. `none`, HS256 and every other
    /// algorithm are refused, so an RSA public key can never be used as an HMAC secret.
    /// - Throws: `JOSEError` with a code per failed check.
    public static func verifyIDToken(_ token: String, keys: JWKSet, validation: Validation) throws(JOSEError) -> JWT {
        let jwt = try decodeUnverified(token)
        let jws = jwt.jws
        guard let algorithm = jws.algorithm else { throw JOSEError(.malformed, "JWS header has no alg") }
        if algorithm.lowercased() == "none" { throw JOSEError(.algorithmNone, "JWS alg none is refused") }
        guard algorithm == "ES256" || algorithm == "RS256" else {
            throw JOSEError(.unsupportedAlgorithm, "ID token alg \(algorithm) is refused (ES256 or RS256 only)")
        }
        if jws.header["crit"] != nil { throw JOSEError(.malformed, "JWS crit header parameters are not supported") }
        let jwk = try keys.verificationKey(kid: jws.keyID, algorithm: algorithm)
        if algorithm == "ES256" {
            try jws.verify(publicKey: try jwk.p256PublicKey())
        } else {
            guard jwk.kty == "RSA", let n = jwk.n, let e = jwk.e,
                let modulus = try? Base64URL.decode(n), let exponent = try? Base64URL.decode(e),
                let key = try? RSA.PublicKey(modulus: modulus, exponent: exponent)
            else { throw JOSEError(.unsupportedKey, "key \(jwk.kid ?? "-") is not a usable RSA key for RS256") }
            guard key.isValidSignature(jws.signature, for: Array(jws.signingInput.utf8)) else {
                throw JOSEError(.invalidSignature, "JWS RS256 signature does not verify")
            }
        }
        try jwt.checkClaims(validation)
        return jwt
    }
}
