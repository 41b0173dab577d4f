import Foundation
import TestSupport
import Testing
import WalletCrypto

/// RSA keys in PKCS#8 (RFC 5208) and SubjectPublicKeyInfo (RFC 5280), as `openssl genpkey` / `pkey -pubout`
/// write them, checked against Python's `cryptography` for the encodings.
@Suite struct RSAPKCS8Tests {
    @Test func pkcs8RoundTripsAndSignaturesStillVerify() throws {
        let key = try RSA.PrivateKey()
        let der = try key.pkcs8DERRepresentation()
        let again = try RSA.PrivateKey(pkcs8DERRepresentation: der)
        #expect(again.publicKey.modulus == key.publicKey.modulus)
        let message = Array("header.payload".utf8)
        #expect(key.publicKey.isValidSignature(try again.signature(for: message), for: message))
        #expect(try again.pkcs8DERRepresentation().withUnsafeBytes { Array($0) } == der.withUnsafeBytes { Array($0) })

        // Not RSA, not DER, trailing bytes: refused without showing the bytes.
        let ec = try P256.Signing.PrivateKey().pkcs8DERRepresentation()
        #expect(throws: CryptoError.self) { try RSA.PrivateKey(pkcs8DERRepresentation: ec) }
        #expect(throws: CryptoError.self) { try RSA.PrivateKey(pkcs8DERRepresentation: SecretBytes([1, 2, 3])) }
        let padded = der.withUnsafeBytes { Array($0) } + [0]
        #expect(throws: CryptoError.self) { try RSA.PrivateKey(pkcs8DERRepresentation: SecretBytes(padded)) }
    }

    /// A key made by `cryptography`: its PKCS#8 and SPKI DER read to the same modulus and exponent, and a
    /// signature of ours verifies under its public key there.
    @Test func readsTheCryptographyPackagesEncodings() throws {
        let script = """
            import sys, json
            from cryptography.hazmat.primitives.asymmetric import rsa, padding
            from cryptography.hazmat.primitives import hashes, serialization as s
            key = rsa.generate_private_key(public_exponent=65537, key_size=3072)
            print(json.dumps({
                "pkcs8": key.private_bytes(s.Encoding.DER, s.PrivateFormat.PKCS8, s.NoEncryption()).hex(),
                "spki": key.public_key().public_bytes(s.Encoding.DER, s.PublicFormat.SubjectPublicKeyInfo).hex(),
                "n": format(key.public_key().public_numbers().n, "x"),
            }))
            """
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(try PythonOracle.run(script).utf8)) as? [String: String])
        let pkcs8 = try #require(object["pkcs8"].flatMap { Hex.decode($0) })
        let spkiDER = try #require(object["spki"].flatMap { Hex.decode($0) })
        let key = try RSA.PrivateKey(pkcs8DERRepresentation: SecretBytes(pkcs8))
        let spki = try RSA.PublicKey(derRepresentation: spkiDER)
        var n = try #require(object["n"])
        if n.count % 2 == 1 { n = "0" + n }
        #expect(key.publicKey.modulus == Hex.decode(n))
        #expect(spki.modulus == Hex.decode(n) && spki.exponent == [0x01, 0x00, 0x01])
        let message = Array("signed by a key read from PKCS#8".utf8)
        #expect(spki.isValidSignature(try key.signature(for: message), for: message))
        print("RSAPKCS8Tests: a 3072-bit key read from cryptography's PKCS#8 and SPKI")
    }
}
