internal import CSodium
import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct Secp256k1Tests {
    static func key(_ hex: String) throws -> Secp256k1.PrivateKey {
        try Secp256k1.PrivateKey(SecretBytes(try #require(Hex.decode(hex))))
    }

    @Test func invalidScalarsAreRefusedWithoutShowingThem() throws {
        let root = try #require(try Fixtures.json("vectors/eip55_and_invalid_keys.json") as? [String: Any])
        let invalid = try #require(root["invalid_private_keys_hex"] as? [String: String])
        let expected: [String: ECCError.Code] = [
            "zero": .privateKeyIsZero, "n": .privateKeyOutOfRange, "n+1": .privateKeyOutOfRange,
            "2^256-1": .privateKeyOutOfRange,
        ]
        var tally = VectorTally("eip55_and_invalid_keys.json invalid_private_keys_hex")
        for (name, hex) in invalid {
            let secret = SecretBytes(try #require(Hex.decode(hex)))
            do {
                _ = try Secp256k1.PrivateKey(secret)
                Issue.record("accepted invalid scalar \(name)")
            } catch {
                #expect(error.code == expected[name], "\(name)")
                #expect(!error.message.lowercased().contains(hex.prefix(16)), "\(name) message leaks the key")
                #expect(!error.message.contains(hex.uppercased().prefix(16)))
            }
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 4)
    }

    @Test func wrongLengthIsRefused() {
        for count in [0, 31, 33, 64] {
            #expect(throws: ECCError(.invalidKeyLength, "")) {
                try Secp256k1.PrivateKey(SecretBytes([UInt8](repeating: 1, count: count)))
            }
        }
    }

    @Test func largestValidScalarIsAccepted() throws {
        // n - 1
        let key = try Self.key("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140")
        #expect(key.publicKey.rawRepresentation.count == 64)
    }

    /// SEC 2 section 2.4.1: 1·G is the published generator.
    @Test func scalarOneGivesTheGenerator() throws {
        let key = try Self.key(String(repeating: "0", count: 63) + "1")
        #expect(
            Base16.encode(key.publicKey.uncompressedRepresentation)
                == "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
                + "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8")
        #expect(
            Base16.encode(key.publicKey.compressedRepresentation)
                == "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
    }

    /// Keystore vectors that state both the private key and the address (ethereum/tests, go-ethereum).
    @Test func knownKeysGiveTheirAddresses() throws {
        var tally = VectorTally("keystore vectors with priv + address")
        for file in [
            "ethereum_tests_KeyStoreTests_basic_tests.json", "geth_accounts_keystore_testdata_v1_test_vector.json",
            "geth_accounts_keystore_testdata_v3_test_vector.json",
        ] {
            let root = try #require(try Fixtures.json("vectors/\(file)") as? [String: [String: Any]])
            for (name, entry) in root {
                guard let priv = entry["priv"] as? String, priv.count == 64,
                    let json = entry["json"] as? [String: Any], let address = json["address"] as? String
                else {
                    tally.skipped()
                    continue
                }
                let key = try Self.key(priv)
                #expect(key.ethereumAddress.lowercased == "0x" + address.lowercased(), "\(file) \(name)")
                #expect(key.publicKey.ethereumAddress == key.ethereumAddress)
                tally.ran()
            }
        }
        tally.report()
        #expect(tally.ran == 2)
    }

    /// Key/address pairs published in documentation: the private key 1; the Web3 Secret Storage
    /// Definition's example key (whose keystore JSON above omits the address); web3.js's
    /// `privateKeyToAccount` example.
    @Test func publishedKeyAddressPairs() throws {
        let pairs = [
            (String(repeating: "0", count: 63) + "1", "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"),
            (
                "7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d",
                "0x008AeEda4D805471dF9b2A5B0f38A0C3bCBA786b"
            ),
            (
                "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
                "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
            ),
        ]
        for (priv, address) in pairs {
            let key = try Self.key(priv)
            #expect(key.ethereumAddress == (try EthereumAddress(address)), "\(address)")
            #expect(key.ethereumAddress.checksummed.lowercased() == address.lowercased())
        }
    }

    @Test func publicKeyParsesAllEncodings() throws {
        let key = Secp256k1.PrivateKey.generate()
        let pub = key.publicKey
        #expect(try Secp256k1.PublicKey(bytes: pub.rawRepresentation) == pub)
        #expect(try Secp256k1.PublicKey(bytes: pub.uncompressedRepresentation) == pub)
        #expect(try Secp256k1.PublicKey(bytes: pub.compressedRepresentation) == pub)
        var offCurve = pub.rawRepresentation
        offCurve[63] ^= 1
        #expect(throws: ECCError(.invalidPublicKey, "")) { try Secp256k1.PublicKey(bytes: offCurve) }
        #expect(throws: ECCError(.invalidPublicKey, "")) {
            try Secp256k1.PublicKey(bytes: [UInt8](repeating: 4, count: 40))
        }
    }

    @Test func signRecoverVerifyRoundTrip() throws {
        for i in 0..<16 {
            let key = Secp256k1.PrivateKey.generate()
            let digest = Keccak256.hash("message \(i)")
            let signature = try key.signature(forDigest: digest)
            #expect(signature.bytes().count == 65)
            #expect(signature.recoveryID <= 1)
            // Low-S: s <= n/2, so the top bit of s is clear.
            #expect(signature.s[0] < 0x80)
            #expect(try Secp256k1.PublicKey(recoveringFrom: signature, digest: digest) == key.publicKey)
            #expect(key.publicKey.isValidSignature(signature, digest: digest))
            #expect(key.publicKey.isValidSignature(compact: signature.compact, digest: digest))
            // 27/28 form parses back to the same signature.
            let wire = signature.bytes(vOffset: 27)
            #expect(wire[64] == 27 || wire[64] == 28)
            #expect(try Secp256k1.RecoverableSignature(bytes: wire) == signature)
            // A different digest neither verifies nor recovers the key.
            let other = Keccak256.hash("other \(i)")
            #expect(!key.publicKey.isValidSignature(signature, digest: other))
            #expect((try? Secp256k1.PublicKey(recoveringFrom: signature, digest: other)) != key.publicKey)
            // The wrong key does not verify.
            #expect(!Secp256k1.PrivateKey.generate().publicKey.isValidSignature(signature, digest: digest))
        }
    }

    @Test func signingIsDeterministic() throws {
        let key = try Self.key("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
        let digest = Keccak256.hash("x")
        #expect(try key.signature(forDigest: digest) == key.signature(forDigest: digest))
    }

    @Test func malformedInputsAreRefused() throws {
        let key = Secp256k1.PrivateKey.generate()
        #expect(throws: ECCError(.invalidDigestLength, "")) {
            try key.signature(forDigest: [UInt8](repeating: 1, count: 31))
        }
        let sig = try key.signature(forDigest: [UInt8](repeating: 1, count: 32))
        #expect(throws: ECCError(.invalidSignature, "")) {
            try Secp256k1.RecoverableSignature(bytes: sig.compact + [2])
        }
        #expect(throws: ECCError(.invalidSignature, "")) { try Secp256k1.RecoverableSignature(bytes: sig.compact) }
        #expect(throws: ECCError(.invalidSignature, "")) {
            try Secp256k1.RecoverableSignature(bytes: [UInt8](repeating: 0, count: 64) + [0])
        }
        #expect(throws: ECCError(.invalidSignature, "")) {
            try Secp256k1.RecoverableSignature(bytes: [UInt8](repeating: 0xff, count: 64) + [0])
        }
        #expect(!key.publicKey.isValidSignature(sig, digest: [UInt8](repeating: 1, count: 33)))
    }

    @Test func privateKeyDescriptionIsRedacted() throws {
        let hex = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        let key = try Self.key(hex)
        #expect(!"\(key)".contains("4c0883a6"))
        #expect(!String(reflecting: key).lowercased().contains("4c0883a6"))
    }

    /// Wycheproof ECDSA secp256k1 SHA-256 with Bitcoin's low-S rule: every case through DER verify.
    @Test func wycheproofBitcoinVerify() throws {
        let file = "wycheproof/ecdsa_secp256k1_sha256_bitcoin_test.json"
        let root = try #require(try Fixtures.json("vectors/\(file)") as? [String: Any])
        var tally = VectorTally(file)
        for group in try #require(root["testGroups"] as? [[String: Any]]) {
            let keyInfo = try #require(group["publicKey"] as? [String: Any])
            let pub = try Secp256k1.PublicKey(bytes: try #require(Hex.decode(keyInfo["uncompressed"] as! String)))
            for test in try #require(group["tests"] as? [[String: Any]]) {
                let msg = try #require(Hex.decode(test["msg"] as! String))
                let sig = try #require(Hex.decode(test["sig"] as! String))
                var digest = [UInt8](repeating: 0, count: 32)
                _ = crypto_hash_sha256(&digest, msg, UInt64(msg.count))
                let valid = pub.isValidSignature(der: sig, digest: digest)
                let result = test["result"] as! String
                #expect(valid == (result == "valid"), "tcId \(test["tcId"]!) \(test["comment"]!)")
                tally.ran()
            }
        }
        tally.report()
        #expect(tally.ran == root["numberOfTests"] as? Int)
    }
}
