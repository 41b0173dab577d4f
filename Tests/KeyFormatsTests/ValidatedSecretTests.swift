import KeyFormats
import TestSupport
import Testing
import WalletCrypto

/// Validation without derivation agrees with the deriving parser on every key, valid or not, and the
/// keyed fingerprints find repeated keys across spellings without showing anything.
@Suite struct ValidatedSecretTests {
    static func validate(_ text: String, _ type: KeyType) -> Result<ValidatedSecret, KeyFormatError> {
        Result { () throws(KeyFormatError) -> ValidatedSecret in
            try KeyParser.validate(SecretBytes(Array(text.utf8)), type: type, encoding: .text)
        }
    }

    static func parse(_ text: String, _ type: KeyType) -> Result<ParsedKey, KeyFormatError> {
        Result { () throws(KeyFormatError) -> ParsedKey in
            try KeyParser.parse(SecretBytes(Array(text.utf8)), type: type, encoding: .text)
        }
    }

    @Test func invalidScalarsAreRefusedWithTheParsersCodes() throws {
        let json = try Fixtures.json("vectors/eip55_and_invalid_keys.json") as! [String: Any]
        let invalid = json["invalid_private_keys_hex"] as! [String: String]
        var tally = VectorTally("eip55_and_invalid_keys.json#invalid_private_keys_hex (validate)")
        for (_, hex) in invalid.sorted(by: { $0.key < $1.key }) {
            let validated = Self.validate(hex, .ethereum)
            let parsed = Self.parse(hex, .ethereum)
            guard case .failure(let error) = validated, case .failure(let expected) = parsed else {
                Issue.record("an invalid scalar was accepted")
                continue
            }
            #expect(error.code == expected.code)
            #expect(!error.reason.contains(hex))
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 4)
    }

    /// The range check at its edges: 1 and n-1 pass, n and above fail, every byte position counts.
    @Test func scalarRangeEdges() {
        let n = Secp256k1.curveOrder
        var nMinusOne = n
        nMinusOne[31] -= 1
        let one = [UInt8](repeating: 0, count: 31) + [1]
        var checked = 0
        for bytes in [one, nMinusOne] {
            #expect((try? Self.validate(Hex.encode(bytes), .ethereum).get()) != nil)
            checked += 1
        }
        // n with one byte lowered is below n; with one byte raised (where possible) it is above.
        for index in 0..<32 {
            var below = n
            if below[index] > 0 {
                below[index] -= 1
                #expect((try? Self.validate(Hex.encode(below), .ethereum).get()) != nil, "byte \(index) lowered")
                checked += 1
            }
            var above = n
            if above[index] < 0xff {
                above[index] += 1
                #expect(Self.validate(Hex.encode(above), .ethereum).failure?.code == .keyOutOfRange)
                checked += 1
            }
        }
        print("scalar range edges checked: \(checked)")
        #expect(checked > 40)
    }

    @Test func randomKeysAgreeWithTheDerivingParser() throws {
        for _ in 0..<50 {
            let key = Secp256k1.PrivateKey.generate()
            let hex = Base16.encode(key.secretBytes.unsafeCopy())
            let secret = try Self.validate("0x" + hex, .ethereum).get()
            #expect(secret.secret == key.secretBytes)
            #expect(try secret.derived().address == key.ethereumAddress.checksummed)
            #expect(!secret.description.contains(hex))
            let seed = Ed25519.PrivateKey.generate()
            let keypair = Base58.encode(seed.keypairBytes.unsafeCopy())
            let fromKeypair = try Self.validate(keypair, .solana).get()
            #expect(fromKeypair.secret == seed.seed, "a keypair validates to its seed")
            let fromSeed = try Self.validate(Base58.encode(seed.seed.unsafeCopy()), .solana).get()
            #expect(try fromSeed.derived().address == seed.solanaAddress)
        }
    }

    @Test func keypairMismatchIsStillCaught() {
        let a = Ed25519.PrivateKey.generate()
        let b = Ed25519.PrivateKey.generate()
        let mixed = a.seed.unsafeCopy() + b.publicKey.rawRepresentation
        #expect(Self.validate(Base58.encode(mixed), .solana).failure?.code == .keypairMismatch)
    }

    @Test func expectedAddressIsCheckedByDerivingOnce() throws {
        let key = Secp256k1.PrivateKey.generate()
        let secret = try KeyParser.validate(key.secretBytes, type: .ethereum, encoding: .raw)
        try KeyParser.checkExpectedAddress(key.ethereumAddress.checksummed.lowercased(), of: secret)
        let other = Secp256k1.PrivateKey.generate().ethereumAddress.checksummed
        #expect(throws: KeyFormatError(.expectedAddressMismatch, "")) {
            try KeyParser.checkExpectedAddress(other, of: secret)
        }
    }

    @Test func fingerprintsMatchAcrossSpellingsOnlyWithinOneFingerprinter() throws {
        let key = Secp256k1.PrivateKey.generate()
        let hex = Base16.encode(key.secretBytes.unsafeCopy())
        let fingerprinter = SecretFingerprinter()
        let forms = [hex, "0x" + hex.uppercased(), " " + hex + "\n"].map {
            fingerprinter.fingerprint(try! Self.validate($0, .ethereum).get())
        }
        #expect(Set(forms).count == 1)
        #expect(!forms[0].description.contains(hex.prefix(8)))
        // The same 32 bytes as a Solana seed are another key.
        let asSolana = try KeyParser.validate(key.secretBytes, type: .solana, encoding: .raw)
        #expect(fingerprinter.fingerprint(asSolana) != forms[0])
        // A keypair and its seed are one key.
        let seed = Ed25519.PrivateKey.generate()
        let fromKeypair = try KeyParser.validate(seed.keypairBytes, type: .solana, encoding: .raw)
        let fromSeed = try KeyParser.validate(seed.seed, type: .solana, encoding: .raw)
        #expect(fingerprinter.fingerprint(fromKeypair) == fingerprinter.fingerprint(fromSeed))
        // Another run's fingerprinter has another key.
        #expect(SecretFingerprinter().fingerprint(try Self.validate(hex, .ethereum).get()) != forms[0])
    }
}
