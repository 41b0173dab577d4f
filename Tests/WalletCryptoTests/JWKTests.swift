import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct JWKTests {
    @Test func rfcKeysParseAndThumbprintsMatch() throws {
        let vectors = try JOSEVectors.load()
        var tally = VectorTally("jose_es256_jwk_vectors.json JWK/thumbprint")

        let a3 = try #require(vectors["rfc7515_A3_ES256"])
        let (a3Key, a3Private) = try JOSEVectors.rfc7515Key(vectors)
        #expect(try a3Key.p256PublicKey() == a3Private.publicKey)
        #expect(
            String(decoding: try a3Key.thumbprintInput(), as: UTF8.self)
                == (try JOSEVectors.string(a3["rfc7638_canonical_json"], "canonical")))
        #expect(try a3Key.thumbprint() == (try JOSEVectors.string(a3["rfc7638_thumbprint"], "thumbprint")))
        #expect(a3Key.json["d"] == nil, "the private member is never kept")
        tally.ran()

        let a1 = try #require(vectors["rfc7517_A1_A2_EC"])
        let a1Key = try JWK(json: try #require(a1["public_jwk"]))
        #expect(a1Key.kid == "1")
        #expect(a1Key.use == "enc")
        let a1Public = try a1Key.p256PublicKey()
        let a1d = try Base64URL.decode(try JOSEVectors.string(a1["d"], "d"))
        #expect(try P256.Signing.PrivateKey(rawRepresentation: SecretBytes(a1d)).publicKey == a1Public)
        #expect(
            String(decoding: try a1Key.thumbprintInput(), as: UTF8.self)
                == (try JOSEVectors.string(a1["rfc7638_canonical_json"], "canonical")))
        #expect(try a1Key.thumbprint() == (try JOSEVectors.string(a1["rfc7638_thumbprint"], "thumbprint")))
        tally.ran()

        let rsa = try #require(vectors["rfc7638_3_1_RSA"])
        let rsaKey = try JWK(json: try #require(rsa["jwk"]))
        #expect(try rsaKey.thumbprint() == (try JOSEVectors.string(rsa["thumbprint"], "thumbprint")))
        #expect(throws: JOSEError(.unsupportedKey, "")) { try rsaKey.p256PublicKey() }
        tally.ran()

        // The ID-token key's kid is its own thumbprint.
        let jwks = try JWKSet(json: try #require(vectors["id_token_example"]?["jwks"]))
        #expect(jwks.keys.count == 1)
        #expect(try jwks.keys[0].thumbprint() == jwks.keys[0].kid)
        tally.ran()

        tally.report()
        #expect(tally.ran == 4)
    }

    @Test func roundTripsAP256Key() throws {
        let key = try P256.Signing.PrivateKey().publicKey
        let jwk = JWK(p256PublicKey: key, kid: "k1")
        #expect(jwk.json.objectValue?.keys == ["kty", "crv", "x", "y", "kid", "alg", "use"])
        let reparsed = try JWK(jsonString: jwk.json.serialized())
        #expect(reparsed == jwk)
        #expect(try reparsed.p256PublicKey() == key)
        let set = JWKSet(keys: [jwk])
        #expect(try JWKSet(jsonString: set.json.serialized()) == set)
        #expect(set.key(kid: "k1") == jwk)
        #expect(set.key(kid: "k2") == nil)
    }

    @Test func malformedKeysAreRefused() throws {
        #expect(throws: JOSEError(.malformed, "")) { try JWK(jsonString: "[]") }
        #expect(throws: JOSEError(.malformed, "")) { try JWK(jsonString: #"{"crv":"P-256"}"#) }
        #expect(throws: JOSEError(.malformed, "")) { try JWK(jsonString: #"{"kty":1}"#) }
        #expect(throws: JOSEError(.malformed, "")) { try JWK(jsonString: #"{"kty":"EC","kty":"EC"}"#) }
        #expect(throws: JOSEError(.malformed, "")) { try JWKSet(jsonString: #"{"keys":{}}"#) }
        let good = JWK(p256PublicKey: try P256.Signing.PrivateKey().publicKey)
        var offCurve = good
        offCurve.y = good.x
        #expect(throws: JOSEError(.unsupportedKey, "")) { try offCurve.p256PublicKey() }
        var short = good
        short.x = Base64URL.encode([UInt8](repeating: 1, count: 31))
        #expect(throws: JOSEError(.unsupportedKey, "")) { try short.p256PublicKey() }
        var p384 = good
        p384.crv = "P-384"
        #expect(throws: JOSEError(.unsupportedKey, "")) { try p384.p256PublicKey() }
        var padded = good
        padded.x = (good.x ?? "") + "="
        #expect(throws: JOSEError(.unsupportedKey, "")) { try padded.p256PublicKey() }
        #expect(throws: JOSEError(.unsupportedKey, "")) { try JWK(jsonString: #"{"kty":"oct","k":"AA"}"#).thumbprint() }
    }
}
