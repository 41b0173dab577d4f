import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// The Solana import forms derive the public key with WalletCrypto's Swift derivation; each must give the
/// address libsodium gives, and a keypair whose public half is not the seed's must be refused.
@Suite struct ImportedKeyParserTests {
    @Test func solanaFormsMatchLibsodium() throws {
        var checked = 0
        for _ in 0..<50 {
            let reference = Ed25519.PrivateKey.generate()
            let forms = [
                reference.seed, reference.keypairBytes,
                SecretBytes(Array(Base58.encode(reference.seed.unsafeCopy()).utf8)),
                SecretBytes(Array(Base58.encode(reference.keypairBytes.unsafeCopy()).utf8)),
            ]
            for form in forms {
                let key = try ImportedKeyParser.solana(form)
                #expect(key.publicKey == reference.publicKey)
                #expect(key.seed == reference.seed)
                checked += 1
            }
        }
        #expect(checked == 200)
    }

    @Test func keypairWithAnotherPublicHalfIsRefused() throws {
        let a = Ed25519.PrivateKey.generate()
        let b = Ed25519.PrivateKey.generate()
        let forged = SecretBytes(a.seed.unsafeCopy() + b.publicKey.rawRepresentation)
        #expect(throws: WaasError(.invalidRequest, "")) { try ImportedKeyParser.solana(forged) }
        var flipped = a.keypairBytes.unsafeCopy()
        flipped[32] ^= 0x80
        #expect(throws: WaasError(.invalidRequest, "")) { try ImportedKeyParser.solana(SecretBytes(flipped)) }
        do {
            _ = try ImportedKeyParser.solana(forged)
        } catch {
            #expect(error.message.contains("public half"))
            #expect(!"\(error)".contains(Base16.encode(a.seed.unsafeCopy()).prefix(12)))
        }
    }
}
