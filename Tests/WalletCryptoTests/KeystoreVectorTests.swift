import Foundation
import TestSupport
import Testing
import WalletCrypto

/// The KDF and cipher steps of Ethereum keystore files (Web3 Secret Storage V3, geth V1), run on the
/// official vectors: KDF, MAC (Keccak-256 of DK[16..<32] ++ ciphertext, compared in constant time), cipher,
/// and the address of the decrypted key.
@Suite struct KeystoreVectorTests {
    /// The string fields of keystore_official_intermediates.json, by "file#case".
    static let intermediates: [String: [String: String]] = {
        let json = try! Fixtures.json("vectors/keystore_official_intermediates.json") as! [String: Any]
        return (json["entries"] as! [String: [String: Any]]).mapValues { $0.compactMapValues { $0 as? String } }
    }()

    /// Derives the keystore key as `crypto.kdf` says.
    static func deriveKey(_ crypto: [String: Any], password: String) throws -> SecretBytes {
        let params = crypto["kdfparams"] as! [String: Any]
        let salt = Hex.decode(params["salt"] as! String)!
        let length = params["dklen"] as! Int
        let secret = SecretBytes(Array(password.utf8))
        switch crypto["kdf"] as! String {
        case "scrypt":
            return try Scrypt.derive(
                password: secret, salt: salt, n: params["n"] as! Int, r: params["r"] as! Int, p: params["p"] as! Int,
                length: length)
        case "pbkdf2":
            #expect(params["prf"] as? String == "hmac-sha256")
            return try PBKDF2.sha256(password: secret, salt: salt, iterations: params["c"] as! Int, length: length)
        case let other:
            throw CryptoError(.invalidParameter, "unknown kdf \(other)")
        }
    }

    /// Runs one V3 case: derive, compare with the intermediates, decrypt with AES-128-CTR.
    static func checkV3(file: String, name: String, json: [String: Any], password: String, priv: String?) throws -> Int
    {
        let crypto = json["crypto"] as! [String: Any]
        #expect(crypto["cipher"] as? String == "aes-128-ctr", "\(name)")
        let derived = try deriveKey(crypto, password: password)
        var checks = 0
        if let entry = intermediates["\(file)#\(name)"] {
            #expect(derived == SecretBytes(Hex.decode(entry["derived_key"]!)!), "\(name)")
            #expect(Hex.encode(derived.unsafeCopy()[0..<16]) == entry["cipher_key"]!, "\(name)")
            checks += 1
        }
        let iv = Hex.decode((crypto["cipherparams"] as! [String: String])["iv"]!)!
        let ciphertext = Hex.decode(crypto["ciphertext"] as! String)!
        // The MAC is checked before decrypting: a wrong password must never yield a key.
        let mac = Keccak256.hash(Array(derived.unsafeCopy()[16..<32]) + ciphertext)
        #expect(constantTimeEquals(mac, Hex.decode(crypto["mac"] as! String)!), "\(name): MAC")
        // A wrong password fails the MAC (checked where the KDF is cheap, to keep the suite quick).
        if ((crypto["kdfparams"] as? [String: Any])?["n"] as? Int ?? 0) <= 8192 {
            let wrong = try deriveKey(crypto, password: password + "x").unsafeCopy()[16..<32]
            #expect(
                !constantTimeEquals(Keccak256.hash(Array(wrong) + ciphertext), Hex.decode(crypto["mac"] as! String)!))
        }
        checks += 1
        let plaintext = try AESCTR.decrypt(ciphertext, key: SecretBytes(derived.unsafeCopy()[0..<16]), iv: iv)
        // 30/31-byte keys are left-padded to 32; the file's address field (any case) must match.
        let padded = SecretBytes([UInt8](repeating: 0, count: max(0, 32 - plaintext.count)) + plaintext.unsafeCopy())
        if let address = json["address"] as? String {
            let derivedAddress = try Secp256k1.PrivateKey(padded).ethereumAddress
            #expect(derivedAddress == (try EthereumAddress("0x" + address.lowercased())), "\(name): address")
            checks += 1
        }
        if let priv {
            #expect(plaintext == SecretBytes(Hex.decode(priv)!), "\(name)")
            checks += 1
        }
        // Encrypting back gives the file's ciphertext.
        #expect(try AESCTR.encrypt(plaintext, key: SecretBytes(derived.unsafeCopy()[0..<16]), iv: iv) == ciphertext)
        return checks
    }

    /// Every case of a V3 vector file (`{name: {json, password, priv}}`): cases run and checks made.
    static func checkV3File(_ file: String) throws -> (cases: Int, checks: Int) {
        let json = try Fixtures.json("vectors/\(file)") as! [String: [String: Any]]
        var tally = VectorTally(file)
        var checks = 0
        for (name, test) in json.sorted(by: { $0.key < $1.key }) {
            checks += try checkV3(
                file: file, name: name, json: test["json"] as! [String: Any], password: test["password"] as! String,
                priv: test["priv"] as? String)
            tally.ran()
        }
        tally.report()
        print("\(file): \(checks) checks (intermediates, MAC, plaintext keys, addresses)")
        return (tally.ran, checks)
    }

    @Test func ethereumTestsBasic() throws {
        let (cases, checks) = try Self.checkV3File("ethereum_tests_KeyStoreTests_basic_tests.json")
        #expect(cases == 5)
        #expect(checks >= 15)
    }

    @Test func gethV3() throws {
        let (cases, checks) = try Self.checkV3File("geth_accounts_keystore_testdata_v3_test_vector.json")
        #expect(cases == 4)
        #expect(checks >= 12)
    }

    /// geth's very-light-scrypt file (password ""): no published key; the MAC and the address field check it.
    @Test func gethVeryLightScrypt() throws {
        let file = "geth_accounts_keystore_testdata_very-light-scrypt.json"
        let json = try Fixtures.json("vectors/\(file)") as! [String: Any]
        var tally = VectorTally(file)
        let checks = try Self.checkV3(file: file, name: "", json: json, password: "", priv: nil)
        #expect(checks == 2)  // MAC and address
        tally.ran()
        tally.report()
        #expect(tally.ran == 1)
    }

    /// geth V1 (AES-128-CBC): the scrypt key matches; the cipher key is Keccak-256(derived[0..<16])[0..<16]
    /// and equals the intermediates'; the MAC is Keccak-256(derived[16..<32] ++ ciphertext); the plaintext is
    /// the published key.
    @Test func gethV1() throws {
        let file = "geth_accounts_keystore_testdata_v1_test_vector.json"
        let json = try Fixtures.json("vectors/\(file)") as! [String: [String: Any]]
        var tally = VectorTally(file)
        for (name, test) in json.sorted(by: { $0.key < $1.key }) {
            let crypto = (test["json"] as! [String: Any])["Crypto"] as! [String: Any]
            #expect(crypto["cipher"] as? String == "aes-128-cbc")
            let derived = try Self.deriveKey(crypto, password: test["password"] as! String)
            let entry = try #require(Self.intermediates["\(file)#\(name)"])
            #expect(derived == SecretBytes(Hex.decode(entry["derived_key"]!)!))
            let key = SecretBytes(Keccak256.hash(Array(derived.unsafeCopy()[0..<16]))[0..<16])
            #expect(key == SecretBytes(Hex.decode(entry["cipher_key"]!)!))
            let iv = Hex.decode((crypto["cipherparams"] as! [String: String])["iv"]!)!
            let ciphertext = Hex.decode(crypto["ciphertext"] as! String)!
            let mac = Keccak256.hash(Array(derived.unsafeCopy()[16..<32]) + ciphertext)
            #expect(constantTimeEquals(mac, Hex.decode(crypto["mac"] as! String)!))
            let plaintext = try AESCBC.decrypt(ciphertext, key: key, iv: iv)
            #expect(plaintext == SecretBytes(Hex.decode(test["priv"] as! String)!))
            #expect(try AESCBC.encrypt(plaintext, key: key, iv: iv) == ciphertext)
            // A wrong key almost always breaks the padding (or gives other bytes).
            let wrong = try? AESCBC.decrypt(ciphertext, key: SecretBytes(derived.unsafeCopy()[0..<16]), iv: iv)
            #expect(wrong != plaintext)
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 1)
    }

    /// The `evilnonce` case relies on the counter wrapping from 2^128 - 1 to 0; check that directly.
    @Test func ctrCounterWrapsAt128Bits() throws {
        let key = SecretBytes(Array(0..<16))
        let block = SecretBytes([UInt8](repeating: 0, count: 32))
        let allOnes = [UInt8](repeating: 0xff, count: 16)
        let zero = [UInt8](repeating: 0, count: 16)
        let wrapped = try AESCTR.encrypt(block, key: key, iv: allOnes)
        let fromZero = try AESCTR.encrypt(block, key: key, iv: zero)
        #expect(Array(wrapped[16..<32]) == Array(fromZero[0..<16]))
        #expect(throws: CryptoError(.invalidParameter, "")) { try AESCTR.decrypt([1], key: key, iv: [0]) }
    }
}
