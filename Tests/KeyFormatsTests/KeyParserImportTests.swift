import Foundation
import Testing
import WalletCrypto

@testable import KeyFormats

/// The import forms the core and the SDK read through `KeyParser.validateImport` (OMS-REFERENCE "Import").
@Suite struct KeyParserImportTests {
    /// Each Solana form (seed or keypair, raw or base58) gives the seed, and the address libsodium gives.
    @Test func solanaFormsGiveTheSeedAndLibsodiumsPublicKey() throws {
        var checked = 0
        for _ in 0..<50 {
            let reference = Ed25519.PrivateKey.generate()
            let forms = [
                reference.seed, reference.keypairBytes,
                SecretBytes(Array(Base58.encode(reference.seed.unsafeCopy()).utf8)),
                SecretBytes(Array(Base58.encode(reference.keypairBytes.unsafeCopy()).utf8)),
            ]
            for form in forms {
                let validated = try KeyParser.validateImport(form, type: .solana)
                #expect(validated.secret == reference.seed)
                #expect(try Ed25519.publicKey(seed: validated.secret) == reference.publicKey)
                checked += 1
            }
        }
        #expect(checked == 200)
    }

    @Test func keypairWithAnotherPublicHalfIsRefused() throws {
        let a = Ed25519.PrivateKey.generate()
        let b = Ed25519.PrivateKey.generate()
        let forged = SecretBytes(a.seed.unsafeCopy() + b.publicKey.rawRepresentation)
        var flipped = a.keypairBytes.unsafeCopy()
        flipped[32] ^= 0x80
        for keypair in [forged, SecretBytes(flipped)] {
            #expect(throws: KeyFormatError(.keypairMismatch, "")) {
                try KeyParser.validateImport(keypair, type: .solana)
            }
        }
        do {
            _ = try KeyParser.validateImport(forged, type: .solana)
            Issue.record("a forged keypair was accepted")
        } catch {
            #expect(error.reason.contains("public half"))
            #expect(!"\(error)".contains(Base16.encode(a.seed.unsafeCopy()).prefix(12)))
        }
    }

    /// A raw key's length means raw, whatever its bytes (a file's guess refuses printable bytes; a
    /// request's stated form does not); other lengths are text; a stated encoding wins.
    @Test func formFollowsTheLengthOrTheStatedEncoding() throws {
        let key = Secp256k1.PrivateKey.generate()
        let hex = Array(Base16.encode(key.secretBytes.unsafeCopy()).utf8)
        #expect(try KeyParser.validateImport(key.secretBytes, type: .ethereum).secret == key.secretBytes)
        #expect(try KeyParser.validateImport(SecretBytes(hex), type: .ethereum).secret == key.secretBytes)
        #expect(
            try KeyParser.validateImport(SecretBytes(Array("0x".utf8) + hex), type: .ethereum).secret == key.secretBytes
        )
        // 32 printable bytes below n: a valid scalar as sent, but refused as a raw key file.
        let printable = SecretBytes([UInt8](repeating: UInt8(ascii: "A"), count: 32))
        #expect(try KeyParser.validateImport(printable, type: .ethereum).secret == printable)
        #expect(throws: KeyFormatError(.notRawBytes, "")) {
            try KeyParser.validate(printable, type: .ethereum, encoding: .raw)
        }
        // 64 hex digits stated as raw bytes are the wrong length, not a hex key.
        #expect(throws: KeyFormatError(.wrongLength, "")) {
            try KeyParser.validateImport(SecretBytes(hex), type: .ethereum, encoding: .raw)
        }
        #expect(throws: KeyFormatError(.ambiguousBase58, "")) {
            try KeyParser.validateImport(
                SecretBytes(Array(repeating: UInt8(ascii: "1"), count: 32)), type: .solana, encoding: .text)
        }
    }
}
