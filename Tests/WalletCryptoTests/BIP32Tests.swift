import Foundation
import TestSupport
import Testing
import WalletCrypto

/// BIP-32 (secp256k1) and SLIP-10 (Ed25519) derivation against their published vectors, and the path
/// grammar both share.
@Suite struct BIP32Tests {
    /// BIP-32 test vectors 1 to 4: every chain's xprv (the 78 serialized bytes and their Base58Check
    /// checksum) and xpub, from the seed through hardened and normal steps.
    @Test func bip32TestVectors1To4() throws {
        var tally = VectorTally("bip32_test_vectors.json")
        let file = try #require(try Fixtures.json("vectors/bip32_test_vectors.json") as? [String: Any])
        let vectors = try #require(file["vectors"] as? [[String: Any]])
        for vector in vectors {
            let seedHex = try #require(vector["seed"] as? String)
            let seed = SecretBytes(try #require(Hex.decode(seedHex)))
            let master = try BIP32.ExtendedPrivateKey(seed: seed)
            for chain in try #require(vector["chains"] as? [[String: String]]) {
                let pathText = try #require(chain["path"])
                let path = try DerivationPath(parsing: pathText)
                let node = try master.derive(path)
                let xprv = try #require(chain["xprv"])
                let expected = try Base58.decode(xprv)
                let serialized = node.serializedPrivate().unsafeCopy()
                #expect(Hex.encode(serialized) == Hex.encode(expected.prefix(78)), "xprv of \(path)")
                let checksum = Array(SHA256.hash(data: SHA256.hash(data: serialized)).prefix(4))
                #expect(checksum == Array(expected.suffix(4)), "xprv checksum of \(path)")
                #expect(node.extendedPublicKey == chain["xpub"], "xpub of \(path)")
                #expect(Int(node.depth) == path.components.count)
                tally.ran()
            }
        }
        tally.report()
        #expect(tally.ran == 17, "6 + 6 + 2 + 3 chains")
    }

    /// Normal steps hash the parent's public key: deriving m/0 from m and from the same key again agree,
    /// and a normal child differs from the hardened one of the same index.
    @Test func normalAndHardenedChildrenDiffer() throws {
        let master = try BIP32.ExtendedPrivateKey(seed: SecretBytes(Array(repeating: 7, count: 32)))
        let normal = try master.child(DerivationPath.Component(0, hardened: false))
        let hardened = try master.child(DerivationPath.Component(0, hardened: true))
        #expect(normal.privateKey.secretBytes != hardened.privateKey.secretBytes)
        #expect(normal.childNumber == 0 && hardened.childNumber == 0x8000_0000)
        #expect(normal.parentFingerprint == master.fingerprint)
        #expect(!"\(normal)".contains(Hex.encode(normal.privateKey.secretBytes.unsafeCopy())))
    }

    /// A seed outside 16...64 bytes is refused, as BIP-32 bounds it.
    @Test func seedLengthIsBounded() {
        #expect(throws: CryptoError(.invalidParameter, "")) {
            try BIP32.ExtendedPrivateKey(seed: SecretBytes(Array(repeating: 1, count: 15)))
        }
        #expect(throws: CryptoError(.invalidParameter, "")) {
            try SLIP10.Ed25519Node(seed: SecretBytes(Array(repeating: 1, count: 65)))
        }
    }

    /// SLIP-10 Ed25519 vectors 1 and 2: chain code, private key and public key of every chain.
    @Test func slip10Ed25519Vectors() throws {
        var tally = VectorTally("slip10_ed25519_vectors.json")
        let file = try #require(try Fixtures.json("vectors/slip10_ed25519_vectors.json") as? [String: Any])
        for vector in try #require(file["vectors"] as? [[String: Any]]) {
            let seedHex = try #require(vector["seed"] as? String)
            let seed = SecretBytes(try #require(Hex.decode(seedHex)))
            let master = try SLIP10.Ed25519Node(seed: seed)
            for chain in try #require(vector["chains"] as? [[String: String]]) {
                let pathText = try #require(chain["path"])
                let path = try DerivationPath(parsing: pathText)
                let node = try master.derive(path)
                #expect(Hex.encode(node.secretBytes.unsafeCopy()) == chain["priv_key"], "key of \(path)")
                #expect(Hex.encode(node.chainCodeBytes.unsafeCopy()) == chain["chain_code"], "chain code of \(path)")
                #expect("00" + Hex.encode(node.privateKey.publicKey.rawRepresentation) == chain["pub_key"])
                tally.ran()
            }
        }
        tally.report()
        #expect(tally.ran == 12)
    }

    /// A normal step on Ed25519 is refused, and the message says why and what to write instead.
    @Test func slip10RefusesANormalStep() throws {
        let master = try SLIP10.Ed25519Node(seed: SecretBytes(Array(repeating: 3, count: 64)))
        do {
            _ = try master.derive(try DerivationPath(parsing: "m/44'/501'/0"))
            Issue.record("a normal Ed25519 step was derived")
        } catch {
            #expect(error.code == .invalidParameter)
            #expect(error.message.contains("hardened steps only"))
            #expect(error.message.contains("public key"))
            #expect(error.message.contains("write 0'"))
            #expect(error.message.contains("m/44'/501'/0"))
        }
    }

    /// The path grammar: `'`, `h` and `H` mark hardened steps; bad steps are named by position.
    @Test func pathsParseAndPrint() throws {
        let path = try DerivationPath(parsing: " m/44h/60H/0'/0/7 ")
        #expect(path.description == "m/44'/60'/0'/0/7")
        #expect(path.components.map(\.childNumber) == [0x8000_002C, 0x8000_003C, 0x8000_0000, 0, 7])
        #expect(try DerivationPath(parsing: "m").components.isEmpty)
        #expect(try DerivationPath(parsing: "m/2147483647'").components[0].childNumber == 0xFFFF_FFFF)
        for bad in ["", "44'/60'", "m/", "m//1", "m/2147483648", "m/1''", "m/-1", "m/x", "m/1 /2", "m/{i}"] {
            #expect(throws: CryptoError(.invalidParameter, ""), "\(bad)") { try DerivationPath(parsing: bad) }
        }
        do {
            _ = try DerivationPath(parsing: "m/44'/abc")
            Issue.record("a bad step was read")
        } catch {
            #expect(error.message.contains("step 2"))
        }
    }
}

extension BIP32Tests {
    /// BIP-32 test vector 5: every invalid extended key is refused; and every valid xprv and xpub of
    /// vectors 1-4 parses back to what it was serialized from.
    @Test func bip32TestVector5AndRoundTrips() throws {
        let file = try #require(try Fixtures.json("vectors/bip32_test_vectors.json") as? [String: Any])
        let invalid = try #require(file["invalid"] as? [String: [String]])
        var refused = 0
        for text in invalid["xpub"] ?? [] {
            #expect(throws: CryptoError.self, "\(text)") { try BIP32.ExtendedPublicKey(text: text) }
            refused += 1
        }
        for text in invalid["xprv"] ?? [] {
            #expect(throws: CryptoError.self, "\(text)") {
                try BIP32.ExtendedPrivateKey(text: SecretBytes(Array(text.utf8)))
            }
            refused += 1
        }
        #expect(refused == 18, "8 xpub and 10 xprv cases (two of them in both lists)")
        var parsed = 0
        for vector in try #require(file["vectors"] as? [[String: Any]]) {
            for chain in try #require(vector["chains"] as? [[String: String]]) {
                let xprv = try #require(chain["xprv"])
                let key = try BIP32.ExtendedPrivateKey(text: SecretBytes(Array(xprv.utf8)))
                #expect(key.extendedPublicKey == chain["xpub"])
                let xpub = try BIP32.ExtendedPublicKey(text: try #require(chain["xpub"]))
                #expect(xpub.publicKey == key.privateKey.publicKey && xpub.depth == key.depth)
                parsed += 1
            }
        }
        #expect(parsed == 17)
        // The reasons are the BIP's: a few named.
        let zeroKey =
            "xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzF93Y5wvzdUayhgkkFoicQZcP3y52uPPxFnfoLZB21Teqt1VvEHx"
        #expect(throws: CryptoError(.invalidKey, "")) {
            try BIP32.ExtendedPrivateKey(text: SecretBytes(Array(zeroKey.utf8)))
        }
        let badChecksum =
            "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHL"
        do {
            _ = try BIP32.ExtendedPrivateKey(text: SecretBytes(Array(badChecksum.utf8)))
        } catch {
            #expect(error.message.contains("checksum"))
        }
    }
}
