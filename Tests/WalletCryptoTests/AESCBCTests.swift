import TestSupport
import Testing
import WalletCrypto

/// NIST SP 800-38A F.2.1 (CBC-AES128.Encrypt); with PKCS#7 a full padding block follows.
@Suite struct AESCBCTests {
    static let key = SecretBytes(Hex.decode("2b7e151628aed2a6abf7158809cf4f3c")!)
    static let iv = Hex.decode("000102030405060708090a0b0c0d0e0f")!
    static let plaintext = Hex.decode(
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
            + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")!
    static let ciphertext = Hex.decode(
        "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
            + "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7")!

    @Test func nistSP80038A() throws {
        var tally = VectorTally("NIST SP 800-38A F.2.1")
        let sealed = try AESCBC.encrypt(SecretBytes(Self.plaintext), key: Self.key, iv: Self.iv)
        #expect(sealed.count == 80)
        #expect(Array(sealed.prefix(64)) == Self.ciphertext)
        #expect(try AESCBC.decrypt(sealed, key: Self.key, iv: Self.iv) == SecretBytes(Self.plaintext))
        tally.ran()
        tally.report()
        #expect(tally.ran == 1)
    }

    @Test func paddingAndSizes() throws {
        for length in [0, 1, 15, 16, 17, 31, 32, 33] {
            let plaintext = SecretBytes([UInt8](repeating: 0x5a, count: length))
            let sealed = try AESCBC.encrypt(plaintext, key: Self.key, iv: Self.iv)
            #expect(sealed.count == (length / 16 + 1) * 16)
            #expect(try AESCBC.decrypt(sealed, key: Self.key, iv: Self.iv) == plaintext)
        }
        // The NIST blocks without their padding block do not end in valid PKCS#7 padding.
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try AESCBC.decrypt(Self.ciphertext, key: Self.key, iv: Self.iv)
        }
        #expect(throws: CryptoError(.invalidEncoding, "")) {
            try AESCBC.decrypt([1, 2, 3], key: Self.key, iv: Self.iv)
        }
        #expect(throws: CryptoError(.invalidParameter, "")) {
            try AESCBC.encrypt(SecretBytes([1]), key: Self.key, iv: [1])
        }
        #expect(throws: CryptoError(.invalidKey, "")) {
            try AESCBC.encrypt(SecretBytes([1]), key: SecretBytes([1, 2]), iv: Self.iv)
        }
    }
}
