import TestSupport
import Testing
@_spi(Testing) import WalletCrypto

@Suite struct HPKETests {
    /// One RFC 9180 vector of a suite we support, in base mode with HKDF-SHA256.
    struct BaseModeVector {
        let fields: [String: Any]
        let suite: HPKE.Suite
        /// `kem K aead A`, for the expectations' messages.
        var name: String { "kem \(suite.kem.rawValue) aead \(suite.aead.rawValue)" }
        /// The bytes of the hex field `key`.
        func bytes(_ key: String) -> [UInt8] { Hex.decode(fields[key] as! String)! }
    }

    /// The vectors of `all` in base mode (mode 0) with HKDF-SHA256 (kdf 1) whose KEM and AEAD we support,
    /// without the export-only AEAD when `sealing`; each other vector is counted as skipped in `tally`.
    static func baseModeVectors(
        _ all: [[String: Any]], tally: inout VectorTally, sealing: Bool = false
    ) -> [BaseModeVector] {
        all.compactMap { fields in
            guard fields["mode"] as! Int == 0, fields["kdf_id"] as! Int == 1,
                let kem = HPKE.KEM(rawValue: UInt16(fields["kem_id"] as! Int)),
                let aead = HPKE.AEAD(rawValue: UInt16(fields["aead_id"] as! Int)), !sealing || aead != .exportOnly
            else {
                tally.skipped()
                return nil
            }
            return BaseModeVector(fields: fields, suite: HPKE.Suite(kem: kem, kdf: .hkdfSHA256, aead: aead))
        }
    }

    /// RFC 9180 test vectors: base mode, DHKEM(P-256) and DHKEM(X25519), HKDF-SHA256, every AEAD we
    /// support; every encryption in order and every export, from both sides.
    @Test func rfc9180BaseModeVectors() throws {
        let all = try Fixtures.json("vectors/hpke_rfc9180_test-vectors_full.json") as! [[String: Any]]
        var tally = VectorTally("hpke_rfc9180_test-vectors_full.json (mode 0, kem 16/32, kdf 1, aead 1/2/3/0xFFFF)")
        var suites = 0
        var encryptions = 0
        var exports = 0
        for vector in Self.baseModeVectors(all, tally: &tally) {
            let (suite, name, bytes) = (vector.suite, vector.name, vector.bytes)
            let (kem, aead) = (suite.kem, suite.aead)

            // DeriveKeyPair reproduces both key pairs.
            let recipientKeys = try kem.deriveKeyPair(inputKeyMaterial: SecretBytes(bytes("ikmR")))
            #expect(recipientKeys.privateKey == SecretBytes(bytes("skRm")), "\(name)")
            #expect(recipientKeys.publicKey == bytes("pkRm"), "\(name)")
            let ephemeralKeys = try kem.deriveKeyPair(inputKeyMaterial: SecretBytes(bytes("ikmE")))
            #expect(ephemeralKeys.privateKey == SecretBytes(bytes("skEm")), "\(name)")
            #expect(ephemeralKeys.publicKey == bytes("pkEm"), "\(name)")

            let info = bytes("info")
            let sender = try HPKE.Sender(
                suite: suite, recipientKey: bytes("pkRm"), info: info,
                ephemeralInputKeyMaterial: SecretBytes(bytes("ikmE")))
            #expect(sender.encapsulatedKey == bytes("enc"), "\(name)")
            let recipient = try HPKE.Recipient(
                suite: suite, privateKey: SecretBytes(bytes("skRm")), encapsulatedKey: bytes("enc"), info: info)

            let baseNonce = bytes("base_nonce")
            for (index, encryption) in (vector.fields["encryptions"] as! [[String: String]]).enumerated() {
                // The vectors list consecutive sequence numbers: nonce = base_nonce XOR index.
                var nonce = baseNonce
                for i in 0..<8 { nonce[11 - i] ^= UInt8(truncatingIfNeeded: index >> (8 * i)) }
                #expect(Hex.decode(encryption["nonce"]!)! == nonce, "\(name) #\(index)")
                let plaintext = Hex.decode(encryption["pt"]!)!
                let aad = Hex.decode(encryption["aad"]!)!
                let ciphertext = Hex.decode(encryption["ct"]!)!
                #expect(try sender.seal(plaintext, authenticating: aad) == ciphertext, "\(name) #\(index)")
                #expect(try recipient.open(ciphertext, authenticating: aad) == plaintext, "\(name) #\(index)")
                encryptions += 1
            }
            if aead == .exportOnly {
                #expect(throws: CryptoError(.invalidParameter, "")) { try sender.seal([1]) }
            }
            for export in vector.fields["exports"] as! [[String: Any]] {
                let context = Hex.decode(export["exporter_context"] as! String)!
                let length = export["L"] as! Int
                let expected = SecretBytes(Hex.decode(export["exported_value"] as! String)!)
                #expect(try sender.export(context: context, length: length) == expected, "\(name)")
                #expect(try recipient.export(context: context, length: length) == expected, "\(name)")
                exports += 1
            }
            suites += 1
            tally.ran()
        }
        tally.report()
        print("hpke: \(suites) suites, \(encryptions) encryptions, \(exports) exports")
        #expect(suites == 8)
        #expect(encryptions == 1542)
        #expect(exports == 24)
    }

    /// Sealing and opening at an explicit sequence number reproduces the vectors' i-th encryption, in
    /// reverse order and without moving the contexts' counters (the batched import opens item i at i).
    @Test func explicitSequenceNumbersMatchTheVectors() throws {
        let all = try Fixtures.json("vectors/hpke_rfc9180_test-vectors_full.json") as! [[String: Any]]
        var tally = VectorTally("hpke_rfc9180_test-vectors_full.json encryptions at explicit sequence numbers")
        var encryptions = 0
        for vector in Self.baseModeVectors(all, tally: &tally, sealing: true) {
            let (suite, name, bytes) = (vector.suite, vector.name, vector.bytes)
            let sender = try HPKE.Sender(
                suite: suite, recipientKey: bytes("pkRm"), info: bytes("info"),
                ephemeralInputKeyMaterial: SecretBytes(bytes("ikmE")))
            let recipient = try HPKE.Recipient(
                suite: suite, privateKey: SecretBytes(bytes("skRm")), encapsulatedKey: bytes("enc"),
                info: bytes("info"))
            let list = vector.fields["encryptions"] as! [[String: String]]
            for (index, encryption) in list.enumerated().reversed() {
                let plaintext = Hex.decode(encryption["pt"]!)!
                let aad = Hex.decode(encryption["aad"]!)!
                let ciphertext = Hex.decode(encryption["ct"]!)!
                let sequence = UInt64(index)
                #expect(
                    try sender.seal(plaintext, authenticating: aad, sequenceNumber: sequence) == ciphertext,
                    "\(name) #\(index)")
                #expect(
                    try recipient.open(ciphertext, authenticating: aad, sequenceNumber: sequence) == plaintext,
                    "\(name) #\(index)")
                if index > 0 {
                    // At a neighbouring sequence number the same ciphertext does not open.
                    #expect(throws: CryptoError(.authenticationFailure, "")) {
                        try recipient.open(ciphertext, authenticating: aad, sequenceNumber: sequence - 1)
                    }
                }
                encryptions += 1
            }
            #expect(sender.sequenceNumber == 0 && recipient.sequenceNumber == 0, "\(name)")
            // The counters still start at message 0.
            let first = list[0]
            #expect(
                try recipient.open(Hex.decode(first["ct"]!)!, authenticating: Hex.decode(first["aad"]!)!)
                    == Hex.decode(first["pt"]!)!, "\(name)")
            tally.ran()
        }
        tally.report()
        print("hpke explicit sequence: \(tally.ran) suites, \(encryptions) encryptions")
        #expect(tally.ran == 6)
        #expect(encryptions == 1542)
    }

    /// A message that fails to open at its sequence number leaves every later one openable.
    @Test func aFailedOpenDoesNotDesynchroniseLaterMessages() throws {
        let suite = HPKE.Suite(kem: .p256HKDFSHA256, aead: .aes256GCM)
        let keys = try suite.kem.generateKeyPair()
        let sender = try HPKE.Sender(suite: suite, recipientKey: keys.publicKey, info: Array("batch".utf8))
        var messages = try (0..<8).map { try sender.seal([UInt8(truncatingIfNeeded: $0)], authenticating: [7]) }
        messages[3][0] ^= 1
        let recipient = try HPKE.Recipient(
            suite: suite, privateKey: keys.privateKey, encapsulatedKey: sender.encapsulatedKey,
            info: Array("batch".utf8))
        var opened = 0
        for (index, message) in messages.enumerated() {
            if index == 3 {
                #expect(throws: CryptoError(.authenticationFailure, "")) {
                    try recipient.open(message, authenticating: [7], sequenceNumber: 3)
                }
                continue
            }
            #expect(try recipient.open(message, authenticating: [7], sequenceNumber: UInt64(index)) == [UInt8(index)])
            opened += 1
        }
        #expect(opened == 7)
    }

    @Test func roundTripsAndRejects() throws {
        for kem in HPKE.KEM.allCases {
            for aead in [HPKE.AEAD.aes128GCM, .aes256GCM, .chaCha20Poly1305] {
                let suite = HPKE.Suite(kem: kem, aead: aead)
                let keys = try kem.generateKeyPair()
                #expect(keys.publicKey.count == kem.encapsulatedKeySize)
                let sender = try HPKE.Sender(suite: suite, recipientKey: keys.publicKey, info: Array("app".utf8))
                let first = try sender.seal(Array("one".utf8), authenticating: [1])
                let second = try sender.seal(Array("two".utf8))
                #expect(sender.sequenceNumber == 2)

                let recipient = try HPKE.Recipient(
                    suite: suite, privateKey: keys.privateKey, encapsulatedKey: sender.encapsulatedKey,
                    info: Array("app".utf8))
                // Out of order fails and leaves the sequence number alone.
                #expect(throws: CryptoError(.authenticationFailure, "")) { try recipient.open(second) }
                #expect(recipient.sequenceNumber == 0)
                #expect(try recipient.open(first, authenticating: [1]) == Array("one".utf8))
                #expect(try recipient.open(second) == Array("two".utf8))

                // A different info gives different keys.
                let other = try HPKE.Recipient(
                    suite: suite, privateKey: keys.privateKey, encapsulatedKey: sender.encapsulatedKey,
                    info: Array("app2".utf8))
                #expect(throws: CryptoError(.authenticationFailure, "")) {
                    try other.open(first, authenticating: [1])
                }
                #expect(
                    try sender.export(context: [9], length: 48)
                        == recipient.export(context: [9], length: 48))
            }
        }
        // A recipient key that is not on P-256 is refused.
        var bad = try HPKE.KEM.p256HKDFSHA256.generateKeyPair().publicKey
        bad[64] ^= 1
        #expect(throws: CryptoError(.invalidKey, "")) {
            try HPKE.Sender(suite: .p256SHA256AES128GCM, recipientKey: bad, info: [UInt8]())
        }
        #expect(throws: CryptoError(.invalidKey, "")) {
            try HPKE.Sender(
                suite: .x25519SHA256ChaChaPoly, recipientKey: [UInt8](repeating: 0, count: 32), info: [UInt8]())
        }
    }
}
