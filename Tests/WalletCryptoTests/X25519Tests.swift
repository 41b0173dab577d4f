import TestSupport
import Testing
import WalletCrypto

@Suite struct X25519Tests {
    /// RFC 7748 section 6.1.
    @Test func rfc7748DiffieHellman() throws {
        var tally = VectorTally("RFC 7748 6.1")
        let alice = try X25519.PrivateKey(
            rawRepresentation: SecretBytes(
                Hex.decode("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")!))
        let bob = try X25519.PrivateKey(
            rawRepresentation: SecretBytes(
                Hex.decode("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")!))
        #expect(
            Hex.encode(alice.publicKey.rawRepresentation)
                == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        #expect(
            Hex.encode(bob.publicKey.rawRepresentation)
                == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        #expect(Hex.encode(try alice.sharedSecret(with: bob.publicKey).unsafeCopy()) == shared)
        #expect(Hex.encode(try bob.sharedSecret(with: alice.publicKey).unsafeCopy()) == shared)
        #expect(
            alice.rawRepresentation.unsafeCopy() == Hex.decode(
                "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")!)
        tally.ran()
        tally.report()
        #expect(tally.ran == 1)
    }

    @Test func rejectsSmallOrderPointsAndBadSizes() throws {
        let key = try X25519.PrivateKey()
        // u = 0 and u = 1 have small order: the shared secret is all zeros.
        for u: UInt8 in [0, 1] {
            let point = try X25519.PublicKey(rawRepresentation: [u] + [UInt8](repeating: 0, count: 31))
            #expect(throws: CryptoError(.invalidKey, "")) { try key.sharedSecret(with: point) }
        }
        #expect(throws: CryptoError.self) { try X25519.PublicKey(rawRepresentation: [UInt8](repeating: 9, count: 31)) }
        #expect(throws: CryptoError.self) { try X25519.PrivateKey(rawRepresentation: SecretBytes.random(count: 31)) }
        let other = try X25519.PrivateKey()
        #expect(try key.sharedSecret(with: other.publicKey) == other.sharedSecret(with: key.publicKey))
    }
}
