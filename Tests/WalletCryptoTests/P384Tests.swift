import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct P384Tests {
    /// cose-wg/Examples ecdsa-sig-02: an ES384 COSE_Sign1 signature over its Sig_structure.
    @Test func coseES384ExampleVerifies() throws {
        let json = try Fixtures.json("vectors/cose_sign1_es384_example.json") as! [String: Any]
        var tally = VectorTally("cose_sign1_es384_example.json")
        let jwk = json["public_jwk"] as! [String: String]
        let key = try P384.Signing.PublicKey(x: testBase64URLDecode(jwk["x"]!)!, y: testBase64URLDecode(jwk["y"]!)!)
        let toBeSigned = Hex.decode(json["sig_structure_tbs_hex"] as! String)!
        let signature = Array(Hex.decode(json["cose_sign1_tagged_hex"] as! String)!.suffix(96))
        #expect(key.isValidSignature(signature, for: toBeSigned))
        let der = try ECDSASignatureFormat.der(fromRaw: signature, scalarSize: 48)
        #expect(key.isValidDERSignature(der, for: toBeSigned))
        #expect(key.isValidSignature(signature, forDigest: SHA384.hash(data: toBeSigned)))
        var tampered = toBeSigned
        tampered[0] ^= 1
        #expect(!key.isValidSignature(signature, for: tampered))
        tally.ran()
        tally.report()
        #expect(tally.ran == 1)
    }

    @Test func signVerifyAndKeyRoundTrips() throws {
        let key = try P384.Signing.PrivateKey()
        let message = Array("walletops".utf8)
        let raw = try key.signature(for: message)
        #expect(raw.count == 96)
        #expect(key.publicKey.isValidSignature(raw, for: message))
        let der = try key.derSignature(for: message)
        #expect(key.publicKey.isValidDERSignature(der, for: message))
        #expect(!key.publicKey.isValidDERSignature(der, for: Array("walletopz".utf8)))
        let digest = SHA384.hash(data: message)
        #expect(key.publicKey.isValidDERSignature(try key.derSignature(forDigest: digest), for: message))

        let scalar = key.rawRepresentation
        #expect(scalar.count == 48)
        #expect(try P384.Signing.PrivateKey(rawRepresentation: scalar).publicKey == key.publicKey)
        let reread = try P384.Signing.PrivateKey(pkcs8DERRepresentation: key.pkcs8DERRepresentation())
        #expect(reread.rawRepresentation == scalar)
        let point = key.publicKey.x963Representation
        #expect(point.count == 97)
        #expect(try P384.Signing.PublicKey(x: key.publicKey.x, y: key.publicKey.y) == key.publicKey)
        #expect(try P384.Signing.PublicKey(derRepresentation: key.publicKey.derRepresentation) == key.publicKey)
        #expect(throws: CryptoError.self) { try P256.Signing.PublicKey(x963Representation: point) }

        let other = try P384.KeyAgreement.PrivateKey()
        let shared = try key.sharedSecret(with: other.publicKey)
        #expect(shared.count == 48)
        #expect(shared == (try other.sharedSecret(with: key.publicKey)))
    }
}
