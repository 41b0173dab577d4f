import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct RSATests {
    @Test func signsAndVerifiesRS256() throws {
        let key = try RSA.PrivateKey()
        let message = Array("header.payload".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 256)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: Array("header.payloaD".utf8)))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!key.publicKey.isValidSignature(flipped, for: message))
        let rebuilt = try RSA.PublicKey(modulus: key.publicKey.modulus, exponent: key.publicKey.exponent)
        #expect(rebuilt.isValidSignature(signature, for: message))
    }

    /// Signatures made by Python's `cryptography` verify with ours, and ours verify with it.
    @Test func agreesWithTheCryptographyPackage() throws {
        let script = """
            import sys, json
            from cryptography.hazmat.primitives.asymmetric import rsa, padding
            from cryptography.hazmat.primitives import hashes
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            n = key.public_key().public_numbers().n
            messages = [b"", b"a", b"header.payload" * 50]
            sigs = [key.sign(m, padding.PKCS1v15(), hashes.SHA256()).hex() for m in messages]
            print(json.dumps({"n": format(n, "x"), "sigs": sigs, "msgs": [m.hex() for m in messages]}))
            """
        let output = try PythonOracle.run(script)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        var nHex = try #require(object["n"] as? String)
        if nHex.count % 2 == 1 { nHex = "0" + nHex }
        let key = try RSA.PublicKey(modulus: try #require(Hex.decode(nHex)), exponent: [0x01, 0x00, 0x01])
        let sigs = try #require(object["sigs"] as? [String])
        let msgs = try #require(object["msgs"] as? [String])
        for (sig, msg) in zip(sigs, msgs) {
            #expect(key.isValidSignature(try #require(Hex.decode(sig)), for: try #require(Hex.decode(msg))))
        }
        #expect(sigs.count == 3)

        let ours = try RSA.PrivateKey()
        let signature = try ours.signature(for: Array("walletops".utf8))
        let verify = """
            import sys
            from cryptography.hazmat.primitives.asymmetric import rsa, padding
            from cryptography.hazmat.primitives import hashes
            n, sig = sys.stdin.read().split()
            rsa.RSAPublicNumbers(65537, int(n, 16)).public_key().verify(bytes.fromhex(sig), b"walletops", padding.PKCS1v15(), hashes.SHA256())
            print("ok")
            """
        let answer = try PythonOracle.run(
            verify, stdin: Hex.encode(ours.publicKey.modulus) + " " + Hex.encode(signature))
        #expect(answer.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }

    @Test func refusesShortModuli() {
        #expect(throws: CryptoError.self) {
            try RSA.PublicKey(modulus: [UInt8](repeating: 0xff, count: 128), exponent: [3])
        }
    }
}
