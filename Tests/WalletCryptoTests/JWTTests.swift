import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct JWTTests {
    struct IDToken {
        let jwks: JWKSet
        let privateKey: P256.Signing.PrivateKey
        let token: String
        let expected: JSONObject
        let validation: JWT.Validation
        let negative: JSONObject
    }

    static func idToken() throws -> IDToken {
        let example = try #require(try JOSEVectors.load()["id_token_example"])
        let d = try Base64URL.decode(try JOSEVectors.string(example["private_d_b64u"], "d"))
        let expected = try #require(example["expected_claims"]?.objectValue)
        let iat = try #require(expected["iat"]?.intValue)
        return IDToken(
            jwks: try JWKSet(json: try #require(example["jwks"])),
            privateKey: try P256.Signing.PrivateKey(rawRepresentation: SecretBytes(d)),
            token: try JOSEVectors.string(example["token"], "token"), expected: expected,
            validation: JWT.Validation(
                issuer: try JOSEVectors.string(example["verify_with"]?["issuer"], "issuer"),
                audience: try JOSEVectors.string(example["verify_with"]?["audience"], "audience"),
                now: Date(timeIntervalSince1970: TimeInterval(iat + 60))),
            negative: try #require(example["negative"]?.objectValue))
    }

    @Test func generatedIDTokenVerifiesAndNegativesAreRefused() throws {
        let example = try Self.idToken()
        var tally = VectorTally("jose_es256_jwk_vectors.json id_token_example")
        let jwt = try JWT.verify(example.token, keys: example.jwks, validation: example.validation)
        #expect(jwt.claims == example.expected)
        #expect(jwt.claims.keys == example.expected.keys)
        #expect(jwt.subject == "user-123")
        #expect(try jwt.audience == ["client-abc"])
        #expect(jwt.jws.keyID == example.jwks.keys[0].kid)
        #expect(try example.privateKey.publicKey == example.jwks.keys[0].p256PublicKey())
        tally.ran()

        let expectedCodes: [String: JOSEError.Code] = [
            "signature_in_DER_instead_of_raw": .invalidSignature, "payload_tampered": .invalidSignature,
            "alg_none": .algorithmNone,
        ]
        for (name, token) in example.negative {
            let code = try #require(expectedCodes[name], "unexpected negative case \(name)")
            #expect(throws: JOSEError(code, ""), "\(name)") {
                try JWT.verify(try #require(token.stringValue), keys: example.jwks, validation: example.validation)
            }
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 4)
    }

    @Test func rfc7515A3AsAToken() throws {
        let vectors = try JOSEVectors.load()
        let a3 = try #require(vectors["rfc7515_A3_ES256"])
        let (jwk, _) = try JOSEVectors.rfc7515Key(vectors)
        let compact = try JOSEVectors.string(a3["jws_compact"], "jws")
        let before = try #require(a3["verify_at_unix_time_before_exp"]?.intValue)
        let keys = JWKSet(keys: [jwk])
        let validation = JWT.Validation(
            issuer: "joe", audience: nil, now: Date(timeIntervalSince1970: TimeInterval(before)))
        let jwt = try JWT.verify(compact, keys: keys, validation: validation)
        #expect(jwt.claims["http://example.com/is_root"] == true)
        #expect(jwt.expiration == Date(timeIntervalSince1970: 1_300_819_380))
        var late = validation
        late.now = Date(timeIntervalSince1970: 1_300_819_380 + 61)
        #expect(throws: JOSEError(.expired, "")) { try JWT.verify(compact, keys: keys, validation: late) }
        late.now = Date(timeIntervalSince1970: 1_300_819_380 + 59)  // within the leeway
        _ = try JWT.verify(compact, keys: keys, validation: late)
    }

    @Test func encodeThenVerifyAndEachClaimCheck() throws {
        let example = try Self.idToken()
        let kid = try #require(example.jwks.keys[0].kid)
        let now = example.validation.now
        let t = Int64(now.timeIntervalSince1970)
        let claims: JSONObject = [
            "iss": "https://issuer.example", "sub": "s", "aud": ["other", "client-abc"], "iat": .int(t),
            "nbf": .int(t - 10), "exp": .int(t + 600), "custom": ["nested": [1, 2.5, nil]],
        ]
        let token = try JWT.encode(claims: claims, privateKey: example.privateKey, keyID: kid)
        let jwt = try JWT.verify(token, keys: example.jwks, validation: example.validation)
        #expect(jwt.jws.header.keys == ["alg", "typ", "kid"])
        #expect(jwt.claims.keys == claims.keys)
        #expect(jwt.claims == claims)

        func refused(
            _ claims: JSONObject, _ code: JOSEError.Code, validation: JWT.Validation? = nil, kid: String? = nil
        )
            throws
        {
            let token = try JWT.encode(
                claims: claims, privateKey: example.privateKey, keyID: kid ?? example.jwks.keys[0].kid)
            #expect(throws: JOSEError(code, ""), "\(claims) -> \(code)") {
                try JWT.verify(token, keys: example.jwks, validation: validation ?? example.validation)
            }
        }
        var c = claims
        c["exp"] = .int(t - 61)
        try refused(c, .expired)
        c = claims
        c["nbf"] = .int(t + 61)
        try refused(c, .notYetValid)
        c = claims
        c["iss"] = "https://evil.example"
        try refused(c, .wrongIssuer)
        c = claims
        c["aud"] = "other"
        try refused(c, .wrongAudience)
        c = claims
        c["aud"] = ["other"]
        try refused(c, .wrongAudience)
        c = claims
        c["aud"] = [1]
        try refused(c, .invalidClaim)
        c = claims
        c["exp"] = "tomorrow"
        try refused(c, .invalidClaim)
        c = claims
        c["exp"] = nil
        try refused(c, .missingClaim)
        c = claims
        c["iss"] = nil
        try refused(c, .missingClaim)
        try refused(claims, .unknownKey, kid: "someone-else")

        // Another signer under the right kid.
        let forged = try JWT.encode(claims: claims, privateKey: try P256.Signing.PrivateKey(), keyID: kid)
        #expect(throws: JOSEError(.invalidSignature, "")) {
            try JWT.verify(forged, keys: example.jwks, validation: example.validation)
        }
        // A payload that is not an object.
        let notObject = try JWS.signES256(
            header: ["kid": .string(kid)], payload: Array("[1]".utf8), privateKey: example.privateKey)
        #expect(throws: JOSEError(.malformed, "")) {
            try JWT.verify(notObject.compact, keys: example.jwks, validation: example.validation)
        }
        // No kid: accepted only against a single-key set.
        let noKid = try JWT.encode(claims: claims, privateKey: example.privateKey, keyID: nil)
        _ = try JWT.verify(noKid, keys: example.jwks, validation: example.validation)
        let twoKeys = JWKSet(
            keys: example.jwks.keys + [JWK(p256PublicKey: try P256.Signing.PrivateKey().publicKey, kid: "b")])
        #expect(throws: JOSEError(.unknownKey, "")) {
            try JWT.verify(noKid, keys: twoKeys, validation: example.validation)
        }
        // A key published for encryption is not used to verify.
        var encKey = example.jwks.keys[0]
        encKey.use = "enc"
        #expect(throws: JOSEError(.unknownKey, "")) {
            try JWT.verify(token, keys: JWKSet(keys: [encKey]), validation: example.validation)
        }
    }
}
