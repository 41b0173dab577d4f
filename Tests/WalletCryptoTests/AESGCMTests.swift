import TestSupport
import Testing
import WalletCrypto

@Suite struct AESGCMTests {
    /// Wycheproof aes_gcm_test.json: every case with a 12-byte IV and a 128- or 256-bit key.
    @Test func wycheproof() throws {
        let json = try Fixtures.json("vectors/wycheproof/aes_gcm_test.json") as! [String: Any]
        var tally = VectorTally("wycheproof/aes_gcm_test.json")
        var valid = 0
        for group in json["testGroups"] as! [[String: Any]] {
            let keySize = group["keySize"] as! Int
            let ivSize = group["ivSize"] as! Int
            let tests = group["tests"] as! [[String: Any]]
            guard ivSize == 96, keySize == 128 || keySize == 256, group["tagSize"] as! Int == 128 else {
                tally.skipped(tests.count)
                continue
            }
            for test in tests {
                let id = "tcId \(test["tcId"]!) \(test["comment"]!)"
                let key = SecretBytes(Hex.decode(test["key"] as! String)!)
                let nonce = Hex.decode(test["iv"] as! String)!
                let aad = Hex.decode(test["aad"] as! String)!
                let message = Hex.decode(test["msg"] as! String)!
                let sealed = Hex.decode(test["ct"] as! String)! + Hex.decode(test["tag"] as! String)!
                let context = try AESGCM.Context(key: key)
                if (test["result"] as! String) == "valid" {
                    #expect(try AESGCM.seal(message, key: key, nonce: nonce, authenticating: aad) == sealed, "\(id)")
                    #expect(try context.open(sealed, nonce: nonce, authenticating: aad) == message, "\(id)")
                    // The same context seals again after opening.
                    #expect(try context.seal(message, nonce: nonce, authenticating: aad) == sealed, "\(id)")
                    valid += 1
                } else {
                    #expect(throws: CryptoError.self, "\(id)") {
                        try AESGCM.open(sealed, key: key, nonce: nonce, authenticating: aad)
                    }
                }
                tally.ran()
            }
        }
        tally.report()
        #expect(tally.ran == 133)
        #expect(tally.skipped == 183)
        #expect(valid == 79)
    }

    @Test func rejectsTamperingAndBadSizes() throws {
        let key = SecretBytes.random(count: 32)
        let nonce = [UInt8](repeating: 7, count: 12)
        let sealed = try AESGCM.seal(Array("secret".utf8), key: key, nonce: nonce, authenticating: Array("aad".utf8))
        #expect(sealed.count == 6 + 16)
        for i in sealed.indices {
            var tampered = sealed
            tampered[i] ^= 0x80
            #expect(throws: CryptoError(.authenticationFailure, "")) {
                try AESGCM.open(tampered, key: key, nonce: nonce, authenticating: Array("aad".utf8))
            }
        }
        #expect(throws: CryptoError(.authenticationFailure, "")) {
            try AESGCM.open(sealed, key: key, nonce: nonce, authenticating: Array("aaD".utf8))
        }
        #expect(throws: CryptoError(.invalidParameter, "")) { try AESGCM.seal([1], key: key, nonce: [0, 1]) }
        #expect(throws: CryptoError(.invalidKey, "")) {
            try AESGCM.seal([1], key: SecretBytes.random(count: 24), nonce: nonce)
        }
        #expect(throws: CryptoError(.authenticationFailure, "")) { try AESGCM.open([1, 2], key: key, nonce: nonce) }
        let empty = try AESGCM.seal([UInt8](), key: key, nonce: nonce)
        #expect(try AESGCM.open(empty, key: key, nonce: nonce).isEmpty)
    }
}

@Suite struct AESGCMBufferTests {
    /// Sealing into a caller's buffer gives the same bytes as the allocating API, and opens back.
    @Test func sealIntoBufferMatchesTheArrayForm() throws {
        let key = SecretBytes.random(count: 32)
        let context = try AESGCM.Context(key: key)
        let nonce = [UInt8](repeating: 3, count: 12)
        let plaintext = Array("thirty-two bytes of plaintext!!!".utf8)
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        try plaintext.withUnsafeBytes { input in
            try nonce.withUnsafeBytes { iv in
                try output.withUnsafeMutableBytes { out in try context.seal(input, nonce: iv, into: out) }
            }
        }
        #expect(output == (try AESGCM.seal(plaintext, key: key, nonce: nonce)))
        #expect(try AESGCM.open(output, key: key, nonce: nonce) == plaintext)
        var short = [UInt8](repeating: 0, count: plaintext.count)
        #expect(throws: CryptoError.self) {
            try plaintext.withUnsafeBytes { input in
                try nonce.withUnsafeBytes { iv in
                    try short.withUnsafeMutableBytes { out in try context.seal(input, nonce: iv, into: out) }
                }
            }
        }
    }
}
