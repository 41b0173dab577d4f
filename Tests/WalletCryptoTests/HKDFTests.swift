import TestSupport
import Testing
import WalletCrypto

@Suite struct HKDFTests {
    /// Wycheproof hkdf_sha256_test.json (includes RFC 5869's SHA-256 cases); invalid = size too large.
    @Test func wycheproof() throws {
        let json = try Fixtures.json("vectors/wycheproof/hkdf_sha256_test.json") as! [String: Any]
        var tally = VectorTally("wycheproof/hkdf_sha256_test.json")
        for group in json["testGroups"] as! [[String: Any]] {
            for test in group["tests"] as! [[String: Any]] {
                let id = "tcId \(test["tcId"]!)"
                let ikm = SecretBytes(Hex.decode(test["ikm"] as! String)!)
                let salt = Hex.decode(test["salt"] as! String)!
                let info = Hex.decode(test["info"] as! String)!
                let size = test["size"] as! Int
                if (test["result"] as! String) == "valid" {
                    let okm = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, length: size)
                    #expect(okm == SecretBytes(Hex.decode(test["okm"] as! String)!), "\(id)")
                    // Extract then expand gives the same.
                    let prk = HKDF.extract(salt: salt, inputKeyMaterial: ikm)
                    #expect(try HKDF.expand(pseudoRandomKey: prk, info: info, length: size) == okm, "\(id)")
                } else {
                    #expect(throws: CryptoError.self, "\(id)") {
                        try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, length: size)
                    }
                }
                tally.ran()
            }
        }
        tally.report()
        #expect(tally.ran == 86)
    }

    /// RFC 5869 A.1: the PRK itself.
    @Test func rfc5869ExtractValue() {
        let prk = HKDF.extract(
            salt: Hex.decode("000102030405060708090a0b0c")!,
            inputKeyMaterial: SecretBytes([UInt8](repeating: 0x0b, count: 22)))
        #expect(Hex.encode(prk.unsafeCopy()) == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
    }
}
