import Foundation
import TestSupport
import Testing
import WalletCrypto

/// Decodes unpadded base64url (RFC 4648 section 5) for the JOSE vectors; the public Base64URL type lives elsewhere.
func testBase64URLDecode(_ text: String) -> [UInt8]? {
    var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while s.count % 4 != 0 { s += "=" }
    return Data(base64Encoded: s).map { Array($0) }
}

/// A Wycheproof scalar as exactly `size` bytes: its hex may carry a sign byte or be short.
func wycheproofScalar(_ hex: String, size: Int) -> [UInt8] {
    let bytes = Array(Hex.decode(hex)!.drop { $0 == 0 })
    return [UInt8](repeating: 0, count: max(0, size - bytes.count)) + bytes
}

@Suite struct P256Tests {
    @Test func wycheproofECDSAP1363() throws {
        let json = try Fixtures.json("vectors/wycheproof/ecdsa_secp256r1_sha256_p1363_test.json") as! [String: Any]
        var tally = VectorTally("wycheproof/ecdsa_secp256r1_sha256_p1363_test.json")
        for group in json["testGroups"] as! [[String: Any]] {
            let keyInfo = group["publicKey"] as! [String: Any]
            let key = try P256.Signing.PublicKey(x963Representation: Hex.decode(keyInfo["uncompressed"] as! String)!)
            // The same key through its JWK coordinates and its SubjectPublicKeyInfo.
            if let jwk = group["publicKeyJwk"] as? [String: Any] {
                let fromJWK = try P256.Signing.PublicKey(
                    x: testBase64URLDecode(jwk["x"] as! String)!, y: testBase64URLDecode(jwk["y"] as! String)!)
                #expect(fromJWK == key)
            }
            let der = Hex.decode(group["publicKeyDer"] as! String)!
            #expect(try P256.Signing.PublicKey(derRepresentation: der) == key)
            #expect(key.derRepresentation == der)
            for test in group["tests"] as! [[String: Any]] {
                let message = Hex.decode(test["msg"] as! String)!
                let signature = Hex.decode(test["sig"] as! String)!
                let result = test["result"] as! String
                let verified = key.isValidSignature(signature, for: message)
                #expect(verified == (result == "valid"), "tcId \(test["tcId"]!) \(test["comment"]!)")
                tally.ran()
            }
        }
        tally.report()
        #expect(tally.ran == 262)
    }

    @Test func wycheproofECDSADER() throws {
        let json = try Fixtures.json("vectors/wycheproof/ecdsa_secp256r1_sha256_test.json") as! [String: Any]
        var tally = VectorTally("wycheproof/ecdsa_secp256r1_sha256_test.json")
        for group in json["testGroups"] as! [[String: Any]] {
            let keyInfo = group["publicKey"] as! [String: Any]
            let key = try P256.Signing.PublicKey(x963Representation: Hex.decode(keyInfo["uncompressed"] as! String)!)
            for test in group["tests"] as! [[String: Any]] {
                let message = Hex.decode(test["msg"] as! String)!
                let signature = Hex.decode(test["sig"] as! String)!
                let valid = (test["result"] as! String) == "valid"
                #expect(
                    key.isValidDERSignature(signature, for: message) == valid,
                    "tcId \(test["tcId"]!) \(test["comment"]!)")
                // The strict DER reader accepts exactly the encodings OpenSSL accepts for valid signatures.
                if valid {
                    let raw = try ECDSASignatureFormat.raw(fromDER: signature, scalarSize: 32)
                    #expect(key.isValidSignature(raw, for: message))
                    #expect(try ECDSASignatureFormat.der(fromRaw: raw, scalarSize: 32) == signature)
                }
                tally.ran()
            }
        }
        tally.report()
        #expect(tally.ran == 484)
    }

    @Test func wycheproofECDH() throws {
        let json = try Fixtures.json("vectors/wycheproof/ecdh_secp256r1_test.json") as! [String: Any]
        var tally = VectorTally("wycheproof/ecdh_secp256r1_test.json")
        var outcomes: [String: Int] = [:]
        for group in json["testGroups"] as! [[String: Any]] {
            for test in group["tests"] as! [[String: Any]] {
                let result = test["result"] as! String
                let id = "tcId \(test["tcId"]!) \(test["comment"]!)"
                let privateKey = try P256.KeyAgreement.PrivateKey(
                    rawRepresentation: SecretBytes(wycheproofScalar(test["private"] as! String, size: 32)))
                let shared: SecretBytes?
                do {
                    let peer = try P256.KeyAgreement.PublicKey(
                        derRepresentation: Hex.decode(test["public"] as! String)!)
                    shared = try privateKey.sharedSecret(with: peer)
                } catch {
                    shared = nil
                }
                let expected = SecretBytes(Hex.decode(test["shared"] as! String)!)
                switch result {
                case "valid": #expect(shared == expected, "\(id)")
                case "invalid": #expect(shared == nil, "\(id)")
                default: if let shared { #expect(shared == expected, "\(id)") }
                }
                outcomes["\(result)/\(shared == nil ? "rejected" : "accepted")", default: 0] += 1
                tally.ran()
            }
        }
        tally.report()
        print("ecdh_secp256r1 outcomes: \(outcomes.sorted { $0.key < $1.key })")
        #expect(tally.ran == 612)
    }

    @Test func rfc7515HighSSignatureVerifies() throws {
        let json = try Fixtures.json("vectors/jose_es256_jwk_vectors.json") as! [String: Any]
        var tally = VectorTally("jose_es256_jwk_vectors.json")
        let a3 = json["rfc7515_A3_ES256"] as! [String: Any]
        let jwk = a3["jwk"] as! [String: String]
        let key = try P256.Signing.PublicKey(x: testBase64URLDecode(jwk["x"]!)!, y: testBase64URLDecode(jwk["y"]!)!)
        let parts = (a3["jws_compact"] as! String).split(separator: ".").map(String.init)
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        #expect(signingInput == Array((a3["signing_input_ascii"] as! String).utf8))
        let signature = testBase64URLDecode(parts[2])!
        #expect(signature.count == 64)
        #expect(key.isValidSignature(signature, for: signingInput))
        tally.ran()
        #expect(key.isValidDERSignature(Hex.decode(a3["signature_der_hex"] as! String)!, for: signingInput))
        tally.ran()
        // The low-S twin (r, n - s) is valid too.
        let lowS = testBase64URLDecode(a3["signature_r_n_minus_s_b64u (also valid)"] as! String)!
        #expect(key.isValidSignature(lowS, for: signingInput))
        tally.ran()
        var tampered = signingInput
        tampered[tampered.count - 1] ^= 1
        #expect(!key.isValidSignature(signature, for: tampered))
        // The private key from `d` reproduces the public key and signs verifiably.
        let privateKey = try P256.Signing.PrivateKey(rawRepresentation: SecretBytes(testBase64URLDecode(jwk["d"]!)!))
        #expect(privateKey.publicKey == key)
        #expect(key.isValidSignature(try privateKey.signature(for: signingInput), for: signingInput))
        tally.ran()

        // RFC 7517 A.1/A.2: the private `d` gives the published public coordinates.
        let a1 = json["rfc7517_A1_A2_EC"] as! [String: Any]
        let publicJWK = a1["public_jwk"] as! [String: String]
        let d = try P256.Signing.PrivateKey(rawRepresentation: SecretBytes(testBase64URLDecode(a1["d"] as! String)!))
        #expect(d.publicKey.x == testBase64URLDecode(publicJWK["x"]!)!)
        #expect(d.publicKey.y == testBase64URLDecode(publicJWK["y"]!)!)
        tally.ran()

        // Raw-vs-DER edge cases: each token verifies and its two encodings convert into each other.
        let edges = json["es256_raw_vs_der_edge_cases (key = RFC 7515 A.3)"] as! [String: [String: Any]]
        for (name, edge) in edges.sorted(by: { $0.key < $1.key }) {
            let raw = Hex.decode(edge["raw_hex"] as! String)!
            let der = Hex.decode(edge["der_hex"] as! String)!
            #expect(der.count == edge["der_len"] as! Int, "\(name)")
            #expect(try ECDSASignatureFormat.der(fromRaw: raw, scalarSize: 32) == der, "\(name)")
            #expect(try ECDSASignatureFormat.raw(fromDER: der, scalarSize: 32) == raw, "\(name)")
            let tokenParts = (edge["jws_compact"] as! String).split(separator: ".").map(String.init)
            let input = Array((edge["signing_input"] as! String).utf8)
            #expect(testBase64URLDecode(tokenParts[2]) == raw, "\(name)")
            #expect(key.isValidSignature(raw, for: input), "\(name)")
            #expect(key.isValidDERSignature(der, for: input), "\(name)")
            #expect(!key.isValidSignature(der, for: input), "\(name): DER is not a JOSE signature")
            tally.ran()
        }

        // ID token: verifies with the JWKS key; the DER and tampered variants do not.
        let idToken = json["id_token_example"] as! [String: Any]
        let jwks = (idToken["jwks"] as! [String: Any])["keys"] as! [[String: String]]
        let idKey = try P256.Signing.PublicKey(
            x: testBase64URLDecode(jwks[0]["x"]!)!, y: testBase64URLDecode(jwks[0]["y"]!)!)
        func verifies(_ token: String) -> Bool {
            let p = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard p.count == 3, let sig = testBase64URLDecode(p[2]) else { return false }
            return idKey.isValidSignature(sig, for: Array("\(p[0]).\(p[1])".utf8))
        }
        #expect(verifies(idToken["token"] as! String))
        tally.ran()
        for (name, token) in (idToken["negative"] as! [String: String]).sorted(by: { $0.key < $1.key }) {
            #expect(!verifies(token), "\(name)")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 13)
    }

    @Test func signVerifyAndKeyRoundTrips() throws {
        let key = try P256.Signing.PrivateKey()
        let message = Array("walletops".utf8)
        let raw = try key.signature(for: message)
        #expect(raw.count == 64)
        #expect(key.publicKey.isValidSignature(raw, for: message))
        let der = try key.derSignature(for: message)
        #expect(key.publicKey.isValidDERSignature(der, for: message))
        #expect(!key.publicKey.isValidSignature(raw, for: Array("walletopz".utf8)))
        #expect(!key.publicKey.isValidSignature(raw.dropLast(), for: message))

        // Digest variants agree with the message variants.
        let digest = SHA256.hash(data: message)
        #expect(key.publicKey.isValidSignature(try key.signature(forDigest: digest), for: message))
        #expect(key.publicKey.isValidSignature(raw, forDigest: digest))
        #expect(key.publicKey.isValidDERSignature(der, forDigest: digest))

        let scalar = key.rawRepresentation
        #expect(scalar.count == 32)
        #expect(try P256.Signing.PrivateKey(rawRepresentation: scalar).publicKey == key.publicKey)
        let pkcs8 = try key.pkcs8DERRepresentation()
        let reread = try P256.Signing.PrivateKey(pkcs8DERRepresentation: pkcs8)
        #expect(reread.rawRepresentation == scalar)
        #expect(try reread.pkcs8DERRepresentation() == pkcs8)
        #expect(throws: CryptoError.self) { try P384.Signing.PrivateKey(pkcs8DERRepresentation: pkcs8) }
        let point = key.publicKey.x963Representation
        #expect(point.count == 65 && point[0] == 4)
        #expect(try P256.Signing.PublicKey(x963Representation: point) == key.publicKey)
        #expect(try P256.Signing.PublicKey(derRepresentation: key.publicKey.derRepresentation) == key.publicKey)
        #expect(!"\(key.rawRepresentation)".contains(Hex.encode(scalar.unsafeCopy())))
    }

    @Test func rejectsBadKeys() throws {
        let order = Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")!
        for bad in [[UInt8](repeating: 0, count: 32), order, [UInt8](repeating: 0xff, count: 32), [1]] {
            #expect(throws: CryptoError.self) { try P256.Signing.PrivateKey(rawRepresentation: SecretBytes(bad)) }
        }
        var offCurve = try P256.Signing.PrivateKey().publicKey.x963Representation
        offCurve[64] ^= 1
        #expect(throws: CryptoError.self) { try P256.Signing.PublicKey(x963Representation: offCurve) }
        #expect(throws: CryptoError.self) {
            try P256.Signing.PublicKey(x963Representation: [4] + [UInt8](repeating: 0, count: 64))
        }
        let p384 = try P384.Signing.PrivateKey().publicKey
        #expect(throws: CryptoError.self) { try P256.Signing.PublicKey(derRepresentation: p384.derRepresentation) }
    }

    @Test func ecdhAgreesBothWays() throws {
        let a = try P256.KeyAgreement.PrivateKey()
        let b = try P256.KeyAgreement.PrivateKey()
        let ab = try a.sharedSecret(with: b.publicKey)
        #expect(ab.count == 32)
        #expect(ab == (try b.sharedSecret(with: a.publicKey)))
    }

    @Test func keysAreSharedSafelyAcrossTasks() async throws {
        let key = try P256.Signing.PrivateKey()
        let publicKey = key.publicKey
        let verified = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var count = 0
                    for i in 0..<50 {
                        let message = Array("task \(task) message \(i)".utf8)
                        if publicKey.isValidSignature(try key.signature(for: message), for: message) { count += 1 }
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(verified == 400)
    }
}
