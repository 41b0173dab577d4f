import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct JWSTests {
    @Test func rfc7515A3VerifiesIncludingHighS() throws {
        let vectors = try JOSEVectors.load()
        let a3 = try #require(vectors["rfc7515_A3_ES256"])
        let (jwk, _) = try JOSEVectors.rfc7515Key(vectors)
        let key = try jwk.p256PublicKey()
        var tally = VectorTally("jose_es256_jwk_vectors.json RFC 7515 A.3")

        let jws = try JWS(compact: try JOSEVectors.string(a3["jws_compact"], "jws_compact"))
        #expect(jws.signingInput == (try JOSEVectors.string(a3["signing_input_ascii"], "signing_input")))
        #expect(jws.algorithm == "ES256")
        #expect(String(decoding: jws.payload, as: UTF8.self) == (try JOSEVectors.string(a3["payload_json"], "payload")))
        let r = try JOSEVectors.string(a3["signature_raw_r_hex"], "r")
        let s = try JOSEVectors.string(a3["signature_raw_s_hex"], "s")
        #expect(TestSupport.Hex.encode(jws.signature) == r + s)
        #expect(a3["s_is_low"] == false)
        try jws.verify(publicKey: key)
        tally.ran()

        // The low-S twin (r, n - s) is valid too.
        let twin = try JOSEVectors.string(a3["signature_r_n_minus_s_b64u (also valid)"], "twin")
        try JWS(compact: jws.signingInput + "." + twin).verify(publicKey: key)
        tally.ran()

        let edges = try #require(vectors["es256_raw_vs_der_edge_cases (key = RFC 7515 A.3)"]?.objectValue)
        for (name, edge) in edges {
            let compact = try JOSEVectors.string(edge["jws_compact"], name)
            let parsed = try JWS(compact: compact)
            #expect(TestSupport.Hex.encode(parsed.signature) == (try JOSEVectors.string(edge["raw_hex"], name)))
            try parsed.verify(publicKey: key)
            // The same signature in DER is not a JWS signature.
            let der = try #require(TestSupport.Hex.decode(try JOSEVectors.string(edge["der_hex"], name)))
            #expect(throws: JOSEError(.invalidSignature, ""), "\(name)") {
                try JWS(compact: parsed.signingInput + "." + Base64URL.encode(der)).verify(publicKey: key)
            }
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 6)
    }

    @Test func signVerifyAndRefusals() throws {
        let privateKey = try P256.Signing.PrivateKey()
        let key = privateKey.publicKey
        let jws = try JWS.signES256(
            header: ["kid": "a", "alg": "HS256"], payload: Array("hi".utf8), privateKey: privateKey)
        #expect(jws.header.keys == ["alg", "kid"])
        #expect(jws.algorithm == "ES256")
        try jws.verify(publicKey: key)
        try JWS(compact: jws.compact).verify(publicKey: key)

        #expect(throws: JOSEError(.invalidSignature, "")) {
            try jws.verify(publicKey: try P256.Signing.PrivateKey().publicKey)
        }
        let parts = jws.compact.split(separator: ".").map(String.init)
        let otherPayload = Base64URL.encode(Array("ho".utf8))
        #expect(throws: JOSEError(.invalidSignature, "")) {
            try JWS(compact: parts[0] + "." + otherPayload + "." + parts[2]).verify(publicKey: key)
        }
        func withHeader(_ header: String) -> String {
            Base64URL.encode(Array(header.utf8)) + "." + parts[1] + "." + parts[2]
        }
        #expect(throws: JOSEError(.algorithmNone, "")) {
            try JWS(compact: withHeader(#"{"alg":"none"}"#)).verify(publicKey: key)
        }
        #expect(throws: JOSEError(.unsupportedAlgorithm, "")) {
            try JWS(compact: withHeader(#"{"alg":"HS256"}"#)).verify(publicKey: key)
        }
        #expect(throws: JOSEError(.unsupportedAlgorithm, "")) {
            try JWS(compact: withHeader(#"{"alg":"ES384"}"#)).verify(publicKey: key)
        }
        #expect(throws: JOSEError(.malformed, "")) {
            try JWS(compact: withHeader(#"{"typ":"JWT"}"#)).verify(publicKey: key)
        }
        #expect(throws: JOSEError(.malformed, "")) {
            try JWS(compact: withHeader(#"{"alg":"ES256","crit":["exp"]}"#)).verify(publicKey: key)
        }
        for bad in ["a.b", "a.b.c.d", parts[0] + "=." + parts[1] + "." + parts[2], withHeader("[1]"), withHeader("{")] {
            #expect(throws: JOSEError(.malformed, ""), "\(bad)") { try JWS(compact: bad) }
        }
    }
}
