import TestSupport
import Testing
import WalletCrypto

@Suite struct ChaChaPolyTests {
    /// RFC 8439 section 2.8.2.
    @Test func rfc8439AEADExample() throws {
        var tally = VectorTally("RFC 8439 2.8.2")
        let key = SecretBytes(Array(0x80...0x9f))
        let nonce = Hex.decode("070000004041424344454647")!
        let aad = Hex.decode("50515253c0c1c2c3c4c5c6c7")!
        let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
                .utf8)
        let expected = Hex.decode(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b"
                + "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7"
                + "bc3ff4def08e4b7a9de576d26586cec64b6116" + "1ae10b594f09e26a7e902ecbd0600691")!
        let sealed = try ChaChaPoly.seal(plaintext, key: key, nonce: nonce, authenticating: aad)
        #expect(sealed == expected)
        #expect(try ChaChaPoly.open(sealed, key: key, nonce: nonce, authenticating: aad) == plaintext)
        var tampered = sealed
        tampered[0] ^= 1
        #expect(throws: CryptoError(.authenticationFailure, "")) {
            try ChaChaPoly.open(tampered, key: key, nonce: nonce, authenticating: aad)
        }
        #expect(throws: CryptoError(.invalidKey, "")) { try ChaChaPoly.Context(key: SecretBytes.random(count: 16)) }
        tally.ran()
        tally.report()
        #expect(tally.ran == 1)
    }
}
