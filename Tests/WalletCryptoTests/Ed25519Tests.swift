import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct Ed25519Tests {
    @Test func rfc8032Vectors() throws {
        let root = try #require(try Fixtures.json("vectors/ed25519_rfc8032.json") as? [String: Any])
        var tally = VectorTally("ed25519_rfc8032.json")
        for vector in try #require(root["vectors"] as? [[String: String]]) {
            let name = vector["name"]!
            let seed = try #require(Hex.decode(vector["secret_key_seed"]!))
            let message = try #require(Hex.decode(vector["message"]!))
            let key = try Ed25519.PrivateKey(seed: SecretBytes(seed))
            #expect(Base16.encode(key.publicKey.rawRepresentation) == vector["public_key"], "\(name)")
            let signature = key.signature(for: message)
            #expect(Base16.encode(signature) == vector["signature"], "\(name)")
            #expect(Ed25519.verify(signature: signature, message: message, publicKey: key.publicKey))
            #expect(!Ed25519.verify(signature: signature, message: message + [0], publicKey: key.publicKey))
            // The 64-byte libsodium/Solana form yields the same key.
            let keypairHex = try #require(vector["libsodium_64byte_secret_key(seed||pub)"])
            let fromPair = try Ed25519.PrivateKey(keypair: SecretBytes(try #require(Hex.decode(keypairHex))))
            #expect(fromPair.publicKey == key.publicKey)
            #expect(fromPair.keypairBytes == SecretBytes(try #require(Hex.decode(keypairHex))))
            #expect(fromPair.seed == SecretBytes(seed))
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 5)
    }

    @Test func wycheproofVerify() throws {
        let file = "wycheproof/ed25519_test.json"
        let root = try #require(try Fixtures.json("vectors/\(file)") as? [String: Any])
        var tally = VectorTally(file)
        var acceptable = 0
        for group in try #require(root["testGroups"] as? [[String: Any]]) {
            let keyInfo = try #require(group["publicKey"] as? [String: Any])
            let publicKey = try Ed25519.PublicKey(rawRepresentation: try #require(Hex.decode(keyInfo["pk"] as! String)))
            for test in try #require(group["tests"] as? [[String: Any]]) {
                let message = try #require(Hex.decode(test["msg"] as! String))
                let signature = try #require(Hex.decode(test["sig"] as! String))
                let accepted = publicKey.isValidSignature(signature, for: message)
                let label = "tcId \(test["tcId"]!) \(test["comment"]!)"
                switch test["result"] as! String {
                case "valid": #expect(accepted, "\(label)")
                case "invalid": #expect(!accepted, "\(label)")
                default:
                    // "acceptable": policy-dependent. libsodium refuses small-order public keys (we rely
                    // on that) and accepts equation-valid mixed-order ones (RFC 8032 allows either).
                    let flags = test["flags"] as? [String] ?? []
                    if flags.contains("SmallOrderPublicKey") { #expect(!accepted, "\(label)") }
                    acceptable += 1
                }
                tally.ran()
            }
        }
        tally.report()
        print("vectors \(file): \(acceptable) acceptable (policy-dependent) cases")
        #expect(tally.ran == root["numberOfTests"] as? Int)
        #expect(acceptable < tally.ran / 4)
    }

    @Test func mismatchedKeypairIsRefused() throws {
        let a = Ed25519.PrivateKey.generate()
        let b = Ed25519.PrivateKey.generate()
        let forged = SecretBytes(a.seed.unsafeCopy() + b.publicKey.rawRepresentation)
        #expect(throws: ECCError(.keypairMismatch, "")) { try Ed25519.PrivateKey(keypair: forged) }
        var flipped = a.keypairBytes.unsafeCopy()
        flipped[63] ^= 1
        #expect(throws: ECCError(.keypairMismatch, "")) { try Ed25519.PrivateKey(keypair: SecretBytes(flipped)) }
        #expect(try Ed25519.PrivateKey(keypair: a.keypairBytes).publicKey == a.publicKey)
    }

    @Test func wrongLengthsAreRefused() {
        #expect(throws: ECCError(.invalidKeyLength, "")) { try Ed25519.PrivateKey(seed: SecretBytes([1, 2, 3])) }
        #expect(throws: ECCError(.invalidKeyLength, "")) {
            try Ed25519.PrivateKey(seed: SecretBytes([UInt8](repeating: 1, count: 64)))
        }
        #expect(throws: ECCError(.invalidKeyLength, "")) {
            try Ed25519.PrivateKey(keypair: SecretBytes([UInt8](repeating: 1, count: 32)))
        }
        #expect(throws: ECCError(.invalidPublicKey, "")) {
            try Ed25519.PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 31))
        }
        let key = Ed25519.PrivateKey.generate()
        #expect(!key.publicKey.isValidSignature(key.signature(for: [1]).dropLast(), for: [1]))
    }

    @Test func generatedKeysSignAndHaveSolanaAddresses() throws {
        let key = Ed25519.PrivateKey.generate()
        let other = Ed25519.PrivateKey.generate()
        #expect(key.publicKey != other.publicKey)
        let message = Array("transfer 1 SOL".utf8)
        let signature = key.signature(for: message)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!other.publicKey.isValidSignature(signature, for: message))
        #expect(try Base58.decode(key.solanaAddress) == key.publicKey.rawRepresentation)
        #expect(!"\(key)".contains(Base16.encode(key.seed.unsafeCopy()).prefix(12)))
    }

    /// RFC 8032 TEST 1's public key as a Solana address, computed independently of Base58.encode.
    @Test func solanaAddressIsBase58OfThePublicKey() throws {
        let key = try Ed25519.PrivateKey(
            seed: SecretBytes(
                try #require(Hex.decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))))
        #expect(key.solanaAddress == Base58.encode(key.publicKey.rawRepresentation))
        #expect(key.solanaAddress.count >= 32 && key.solanaAddress.count <= 44)
        #expect(try Base58.decode(key.solanaAddress) == key.publicKey.rawRepresentation)
    }
}
