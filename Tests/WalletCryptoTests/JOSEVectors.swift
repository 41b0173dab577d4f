import Foundation
import TestSupport
import Testing
import WalletCrypto

/// `jose_es256_jwk_vectors.json`, read with the order-keeping parser under test.
enum JOSEVectors {
    static func load() throws -> JSONValue {
        try JSONValue.parse(try Fixtures.data("vectors/jose_es256_jwk_vectors.json"))
    }

    static func string(_ value: JSONValue?, _ path: String) throws -> String {
        try #require(value?.stringValue, "missing \(path)")
    }

    /// The RFC 7515 A.3 key pair; the private scalar stays in `SecretBytes`.
    static func rfc7515Key(_ vectors: JSONValue) throws -> (JWK, P256.Signing.PrivateKey) {
        let jwkJSON = try #require(vectors["rfc7515_A3_ES256"]?["jwk"])
        let d = try Base64URL.decode(try string(jwkJSON["d"], "d"))
        return (try JWK(json: jwkJSON), try P256.Signing.PrivateKey(rawRepresentation: SecretBytes(d)))
    }
}
