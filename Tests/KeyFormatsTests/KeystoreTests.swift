import Foundation
import KeyFormats
import TestSupport
import Testing
import WalletCrypto

/// Every keystore vector of Tests/Fixtures/vectors decrypts to its key; wrong passwords fail the MAC.
@Suite struct KeystoreTests {
    struct Case {
        let file: String
        let name: String
        let json: Data
        let password: String
        let priv: String
    }

    /// The vector cases of a "name -> {json, password, priv}" file.
    static func cases(_ file: String) throws -> [Case] {
        let json = try Fixtures.json("vectors/\(file)") as! [String: [String: Any]]
        return try json.keys.sorted().map { name in
            let test = json[name]!
            return Case(
                file: file, name: name, json: try JSONSerialization.data(withJSONObject: test["json"]!),
                password: test["password"] as! String, priv: test["priv"] as! String)
        }
    }

    static func secret(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

    /// The expected ParsedKey: the vector's priv, left-padded, through our secp256k1 (the key bytes
    /// are compared directly, so the address only confirms what the key implies).
    static func check(_ key: ParsedKey, priv: String, _ label: String) {
        var expected = Hex.decode(priv)!
        expected = [UInt8](repeating: 0, count: 32 - expected.count) + expected
        #expect(key.type == .ethereum, "\(label)")
        #expect(key.secret == SecretBytes(expected), "\(label)")
        let address = try! Secp256k1.PrivateKey(SecretBytes(expected)).ethereumAddress.checksummed
        #expect(key.address == address, "\(label)")
    }

    func run(_ file: String, expectedCases: Int) throws {
        var tally = VectorTally(file)
        for test in try Self.cases(file) {
            let keystore = try EncryptedKeystore(json: test.json)
            let key = try keystore.decrypt(password: Self.secret(test.password))
            Self.check(key, priv: test.priv, "\(file)#\(test.name)")
            // A wrong password is refused by the MAC, never decrypted into a different key.
            let wrong = refusal { () throws(KeyFormatError) in
                try keystore.decrypt(password: Self.secret(test.password + "x"))
            }
            expectRefusal(wrong, code: .wrongPassword, errorClass: .decryption, secretForms: [test.priv])
            #expect(wrong?.reason == "wrong password or corrupted file (MAC mismatch)")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == expectedCases)
    }

    @Test func ethereumTestsBasic() throws {
        // test1, test2 (scrypt n = 262144, r = 1, p = 8), python_generated_test_with_odd_iv, evilnonce, mycrypto.
        try run("ethereum_tests_KeyStoreTests_basic_tests.json", expectedCases: 5)
    }

    @Test func gethV3() throws {
        // wikipage scrypt and pbkdf2 vectors, 30- and 31-byte keys.
        try run("geth_accounts_keystore_testdata_v3_test_vector.json", expectedCases: 4)
    }

    @Test func gethV1() throws {
        // AES-128-CBC, scrypt n = 2^18, r = 8 (256 MiB).
        let file = "geth_accounts_keystore_testdata_v1_test_vector.json"
        try run(file, expectedCases: 1)
        let keystore = try EncryptedKeystore(json: Self.cases(file)[0].json)
        #expect(keystore.version == .v1)
        #expect(keystore.kdf == .scrypt(n: 262_144, r: 8, p: 1))
        #expect(keystore.addressHint != nil)
    }

    @Test func veryLightScryptEmptyPassword() throws {
        let file = "geth_accounts_keystore_testdata_very-light-scrypt.json"
        var tally = VectorTally(file)
        let keystore = try EncryptedKeystore(contentsOf: Fixtures.url("vectors/\(file)").path)
        let key = try keystore.decrypt(password: SecretBytes([]))
        // The file's address field is checked against the decrypted key inside decrypt.
        #expect(key.address.lowercased() == "0x45dea0fb0bba44f4fcf290bba71fd57d7117cbb8")
        let wrong = refusal { () throws(KeyFormatError) in try keystore.decrypt(password: Self.secret(" ")) }
        #expect(wrong?.code == .wrongPassword)
        tally.ran()
        tally.report()
        #expect(tally.ran == 1)
    }

    /// The mycrypto vector's JSON with `mutate` applied.
    static func mycrypto(_ mutate: (inout [String: Any]) -> Void) throws -> EncryptedKeystore {
        let json =
            try Fixtures.json("vectors/ethereum_tests_KeyStoreTests_basic_tests.json") as! [String: [String: Any]]
        var object = json["mycrypto"]!["json"] as! [String: Any]
        mutate(&object)
        return try EncryptedKeystore(json: JSONSerialization.data(withJSONObject: object))
    }

    @Test func addressHintInAnyCaseAndMismatch() throws {
        let password = Self.secret("foobartest121")
        let upper = try Self.mycrypto { $0["address"] = "0x" + ($0["address"] as! String).uppercased() }
        #expect(
            try upper.decrypt(password: password).address.lowercased() == "0x460121576cc7df020759730751f92bd62fd78dd6")
        let other = try Self.mycrypto { $0["address"] = "0x0000000000000000000000000000000000000001" }
        let error = refusal { () throws(KeyFormatError) in try other.decrypt(password: password) }
        expectRefusal(
            error, code: .addressMismatch, errorClass: .mismatch,
            secretForms: ["05a4d3eb46c742cb8850440145ce70cbc80b59f891cf5f50fd3e9c280b50c4e4"])
        #expect(error?.reason.lowercased().contains("0x460121576cc7df020759730751f92bd62fd78dd6") == true)
    }

    @Test func corruptedCiphertextFailsTheMAC() throws {
        let keystore = try Self.mycrypto { object in
            var crypto = object["crypto"] as! [String: Any]
            var text = Array(crypto["ciphertext"] as! String)
            text[0] = text[0] == "0" ? "1" : "0"
            crypto["ciphertext"] = String(text)
            object["crypto"] = crypto
        }
        #expect(throws: KeyFormatError(.wrongPassword, "")) {
            try keystore.decrypt(password: Self.secret("foobartest121"))
        }
    }

    @Test func scryptMemoryBoundIsEnforced() throws {
        let keystore = try EncryptedKeystore(
            json: Self.cases("geth_accounts_keystore_testdata_v1_test_vector.json")[0].json)
        #expect(keystore.kdfMemory == 128 * 8 * (262_144 + 1))
        let error = refusal { () throws(KeyFormatError) in
            try keystore.decrypt(password: Self.secret("g"), maxScryptMemory: 64 << 20)
        }
        expectRefusal(error, code: .scryptMemoryLimit, errorClass: .decryption, secretForms: [])
        #expect(error?.reason.contains("256 MiB") == true, "\(String(describing: error))")
    }

    @Test func malformedKeystoresSayWhatIsWrong() throws {
        let cases: [(String, KeyFormatError.Code)] = [
            ("[1,2]", .malformedJSON),
            (#"{"version": 2, "crypto": {}}"#, .unsupportedKeystore),
            (#"{"version": 3}"#, .invalidKeystoreParameter),
            (
                #"{"version": 3, "crypto": {"cipher": "aes-256-gcm", "kdf": "scrypt", "kdfparams": {}}}"#,
                .unsupportedKeystore
            ),
            (
                #"{"version": 3, "crypto": {"cipher": "aes-128-ctr", "kdf": "pbkdf2", "kdfparams": {"prf": "hmac-sha256", "c": 100000000, "dklen": 32, "salt": "00"}}}"#,
                .kdfCostLimit
            ),
            (
                #"{"version": 3, "crypto": {"cipher": "aes-128-ctr", "kdf": "scrypt", "kdfparams": {"n": 1000, "r": 8, "p": 1, "dklen": 32, "salt": "00"}}}"#,
                .invalidKeystoreParameter
            ),
        ]
        for (json, code) in cases {
            #expect(throws: KeyFormatError(code, "")) { try EncryptedKeystore(json: Data(json.utf8)) }
        }
    }
}
