import KeyFormats
import TestSupport
import Testing
import WalletCrypto

/// The validation rules of the reference, each refusal with its reason, class and no key material.
@Suite struct KeyParserTests {
    static func parse(_ text: String, _ type: KeyType) -> Result<ParsedKey, KeyFormatError> {
        Result { () throws(KeyFormatError) -> ParsedKey in
            try KeyParser.parse(SecretBytes(Array(text.utf8)), type: type, encoding: .text)
        }
    }

    @Test func ethereumHexForms() throws {
        let key = Secp256k1.PrivateKey.generate()
        let hex = Base16.encode(key.secretBytes.unsafeCopy())
        for form in [hex, "0x" + hex, "0X" + hex.uppercased(), "  \t" + hex + "\r\n", "\n0x" + hex + " "] {
            let parsed = try Self.parse(form, .ethereum).get()
            #expect(parsed.address == key.ethereumAddress.checksummed)
            #expect(parsed.secret == key.secretBytes)
            #expect(!parsed.description.contains(hex))
        }
        let raw = try KeyParser.parse(key.secretBytes, type: .ethereum, encoding: .raw)
        #expect(raw.address == key.ethereumAddress.checksummed)
    }

    @Test func ethereumRefusals() throws {
        let json = try Fixtures.json("vectors/eip55_and_invalid_keys.json") as! [String: Any]
        let invalid = json["invalid_private_keys_hex"] as! [String: String]
        var tally = VectorTally("eip55_and_invalid_keys.json#invalid_private_keys_hex")
        for (name, hex) in invalid.sorted(by: { $0.key < $1.key }) {
            let code: KeyFormatError.Code = name == "zero" ? .zeroKey : .keyOutOfRange
            expectRefusal(Self.parse(hex, .ethereum).failure, code: code, errorClass: .validation, secretForms: [hex])
            expectRefusal(
                Self.parse("0x" + hex, .ethereum).failure, code: code, errorClass: .validation, secretForms: [hex])
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 4)

        let good = Base16.encode(Secp256k1.PrivateKey.generate().secretBytes.unsafeCopy())
        let short = String(good.dropLast())
        expectRefusal(
            Self.parse(short, .ethereum).failure, code: .wrongLength, errorClass: .validation, secretForms: [short])
        #expect(Self.parse(short, .ethereum).failure?.reason.contains("63 characters") == true)
        let long = good + "00"
        expectRefusal(
            Self.parse(long, .ethereum).failure, code: .wrongLength, errorClass: .validation, secretForms: [good])
        let nonHex = String(good.dropLast()) + "g"
        expectRefusal(
            Self.parse(nonHex, .ethereum).failure, code: .notHex, errorClass: .validation,
            secretForms: [nonHex, String(good.dropLast())])
        #expect(Self.parse(nonHex, .ethereum).failure?.reason.contains("position 64") == true)
        expectRefusal(Self.parse("   ", .ethereum).failure, code: .emptyKey, errorClass: .validation, secretForms: [])
        // Inner whitespace is not trimmed.
        let spaced = String(good.prefix(32)) + " " + String(good.dropFirst(32))
        expectRefusal(
            Self.parse(spaced, .ethereum).failure, code: .wrongLength, errorClass: .validation,
            secretForms: [good.prefix(32).description])
        // 32 bytes of text are not raw key bytes (a truncated hex key).
        let truncated = SecretBytes(Array(good.prefix(32).utf8))
        let rawError = refusal { () throws(KeyFormatError) in
            try KeyParser.parse(truncated, type: .ethereum, encoding: .raw)
        }
        expectRefusal(rawError, code: .notRawBytes, errorClass: .validation, secretForms: [String(good.prefix(32))])
        let rawShort = refusal { () throws(KeyFormatError) in
            try KeyParser.parse(SecretBytes([UInt8](repeating: 0x80, count: 31)), type: .ethereum, encoding: .raw)
        }
        expectRefusal(rawShort, code: .wrongLength, errorClass: .validation, secretForms: [])
    }

    @Test func solanaForms() throws {
        let key = Ed25519.PrivateKey.generate()
        // Base58 of 32 bytes has 32...44 characters and of 64 bytes 64...88: regenerate the rare
        // key whose text lands on an ambiguous length.
        var seed = key.seed.unsafeCopy()
        var keypair = key.keypairBytes.unsafeCopy()
        let seedText = Base58.encode(seed)
        let keypairText = Base58.encode(keypair)
        if seedText.count != 32 {
            let parsed = try Self.parse(seedText, .solana).get()
            #expect(parsed.address == key.solanaAddress)
            #expect(parsed.secret == key.seed)
        }
        if keypairText.count != 64 {
            #expect(try Self.parse(" " + keypairText + "\n", .solana).get().address == key.solanaAddress)
        }
        #expect(try KeyParser.parse(key.seed, type: .solana, encoding: .raw).address == key.solanaAddress)
        #expect(try KeyParser.parse(key.keypairBytes, type: .solana, encoding: .raw).address == key.solanaAddress)
        SecretBytes.wipe(&seed)
        SecretBytes.wipe(&keypair)
    }

    @Test func solanaRefusals() throws {
        let key = Ed25519.PrivateKey.generate()
        let other = Ed25519.PrivateKey.generate()
        // A keypair whose public half belongs to another seed.
        let mismatched = key.seed.unsafeCopy() + other.publicKey.rawRepresentation
        let mismatchedText = Base58.encode(mismatched)
        let seedText = Base58.encode(key.seed.unsafeCopy())
        if mismatchedText.count != 64 {
            expectRefusal(
                Self.parse(mismatchedText, .solana).failure, code: .keypairMismatch, errorClass: .validation,
                secretForms: [mismatchedText, seedText])
        }
        let rawMismatch = refusal { () throws(KeyFormatError) in
            try KeyParser.parse(SecretBytes(mismatched), type: .solana, encoding: .raw)
        }
        expectRefusal(
            rawMismatch, code: .keypairMismatch, errorClass: .validation, secretForms: [mismatchedText, seedText])

        // Exactly 32 or 64 characters: ambiguous with raw bytes or hex, refused before decoding.
        let thirtyTwo = String(repeating: "2", count: 32)
        let sixtyFour = Base16.encode(key.seed.unsafeCopy())  // 64 hex digits given for a Solana key
        for text in [thirtyTwo, sixtyFour] {
            expectRefusal(
                Self.parse(text, .solana).failure, code: .ambiguousBase58, errorClass: .validation, secretForms: [text])
        }
        // Not in the alphabet (0, O, I, l), wrong decoded length, too long.
        let withZero = "0" + String(seedText.dropFirst())
        if withZero.count != 32 {
            expectRefusal(
                Self.parse(withZero, .solana).failure, code: .notBase58, errorClass: .validation,
                secretForms: [withZero, String(seedText.dropFirst())])
        }
        let shortText = String(seedText.prefix(40))
        expectRefusal(
            Self.parse(shortText, .solana).failure, code: .wrongLength, errorClass: .validation,
            secretForms: [shortText])
        let tooLong = String(repeating: "z", count: 89)
        expectRefusal(
            Self.parse(tooLong, .solana).failure, code: .wrongLength, errorClass: .validation, secretForms: [])
        let rawWrong = refusal { () throws(KeyFormatError) in
            try KeyParser.parse(SecretBytes([UInt8](repeating: 0x90, count: 33)), type: .solana, encoding: .raw)
        }
        expectRefusal(rawWrong, code: .wrongLength, errorClass: .validation, secretForms: [])
    }

    @Test func base58DecoderAgreesWithWalletCrypto() throws {
        // The secret-aware decoder must give the same bytes as Base58.decode, leading zeros included.
        var checked = 0
        for zeros in 0..<4 {
            for _ in 0..<25 {
                let seed = [UInt8](repeating: 0, count: zeros) + SecretBytes.random(count: 32 - zeros).unsafeCopy()
                let text = Base58.encode(seed)
                guard text.count != 32 else { continue }
                let parsed = try Self.parse(text, .solana).get()
                #expect(parsed.secret == SecretBytes(try Base58.decode(text)))
                checked += 1
            }
        }
        #expect(checked > 90)
        // 64-byte keypairs (seed then public key), and numbers of other lengths: refused by length.
        for _ in 0..<25 {
            let key = Ed25519.PrivateKey.generate()
            let text = Base58.encode(key.seed.unsafeCopy() + key.publicKey.rawRepresentation)
            guard text.count != 64 else { continue }
            #expect(try Self.parse(text, .solana).get().secret == key.seed)
            checked += 1
        }
        #expect(checked > 110)
        // 88 'z's (the longest text allowed) are a number of 65 bytes.
        let overflowing = String(repeating: "z", count: 88)
        for (length, text) in [1, 31, 33, 63].map({ ($0, Base58.encode([UInt8](repeating: 0xA7, count: $0))) })
            + [(65, overflowing)]
        {
            guard text.count != 32 && text.count != 64 else { continue }
            guard case .failure(let error) = Self.parse(text, .solana) else {
                Issue.record("\(length) bytes of base58 were accepted")
                continue
            }
            #expect(error.code == .wrongLength, "\(length) bytes")
            #expect(error.reason.contains(length > 64 ? "more than 64 bytes" : "\(length) bytes"), "\(error.reason)")
        }
    }

    @Test func referenceLimit() throws {
        try KeyParser.validateReference(String(repeating: "a", count: 128))
        try KeyParser.validateReference(String(repeating: "é", count: 64))  // 128 bytes
        let error = refusal { () throws(KeyFormatError) in
            try KeyParser.validateReference(String(repeating: "é", count: 65))
        }
        expectRefusal(error, code: .referenceTooLong, errorClass: .validation, secretForms: [])
        #expect(error?.reason.contains("130 UTF-8 bytes") == true)
    }

    @Test func expectedAddress() throws {
        let key = try KeyParser.parse(Secp256k1.PrivateKey.generate().secretBytes, type: .ethereum, encoding: .raw)
        try KeyParser.checkExpectedAddress(key.address.lowercased(), of: key)
        try KeyParser.checkExpectedAddress(String(key.address.uppercased().dropFirst(2)), of: key)
        let wrong = refusal { () throws(KeyFormatError) in
            try KeyParser.checkExpectedAddress("0x" + String(repeating: "1", count: 40), of: key)
        }
        expectRefusal(wrong, code: .expectedAddressMismatch, errorClass: .mismatch, secretForms: [])
        let invalid = refusal { () throws(KeyFormatError) in try KeyParser.checkExpectedAddress("0x1234", of: key) }
        expectRefusal(invalid, code: .invalidExpectedAddress, errorClass: .validation, secretForms: [])
        let solana = try KeyParser.parse(Ed25519.PrivateKey.generate().seed, type: .solana, encoding: .raw)
        try KeyParser.checkExpectedAddress(solana.address, of: solana)
        let otherSolana = Ed25519.PrivateKey.generate().solanaAddress
        let mismatch = refusal { () throws(KeyFormatError) in
            try KeyParser.checkExpectedAddress(otherSolana, of: solana)
        }
        expectRefusal(mismatch, code: .expectedAddressMismatch, errorClass: .mismatch, secretForms: [])
    }

    @Test func fingerprintsAndDuplicates() throws {
        let secret = Secp256k1.PrivateKey.generate().secretBytes
        let hex = Base16.encode(secret.unsafeCopy())
        let a = try Self.parse(hex, .ethereum).get()
        let b = try Self.parse("0x" + hex.uppercased(), .ethereum).get()
        let c = try KeyParser.parse(Secp256k1.PrivateKey.generate().secretBytes, type: .ethereum, encoding: .raw)
        #expect(a.fingerprint == b.fingerprint)
        #expect(a.fingerprint != c.fingerprint)
        #expect(KeyFingerprint(hex: a.fingerprint.hex) == a.fingerprint)
        #expect(!a.fingerprint.hex.contains(hex))
        // Not a bare hash of the address or of the key.
        #expect(a.fingerprint.bytes != SHA256.hash(data: secret.unsafeCopy()))
        var tracker = DuplicateTracker()
        try tracker.record(a, source: "3")
        try tracker.record(c, source: "4")
        let duplicate = refusal { () throws(KeyFormatError) in try tracker.record(b, source: "9") }
        expectRefusal(duplicate, code: .duplicateKey, errorClass: .duplicate, secretForms: [hex])
        #expect(duplicate?.reason.contains("source 3") == true)
        #expect(duplicate?.source == "9")
        #expect(tracker.count == 2)
    }
}
