import TestSupport
import Testing
import WalletCrypto

/// NIST SP 800-38A F.5.1 (CTR-AES128.Encrypt) and the 128-bit counter wrap.
@Suite struct AESCTRTests {
    @Test func nistSP80038A() throws {
        var tally = VectorTally("NIST SP 800-38A F.5.1")
        let key = SecretBytes(Hex.decode("2b7e151628aed2a6abf7158809cf4f3c")!)
        let counter = Hex.decode("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")!
        let plaintext = Hex.decode(
            "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")!
        let ciphertext = Hex.decode(
            "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
                + "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee")!
        #expect(try AESCTR.encrypt(SecretBytes(plaintext), key: key, iv: counter) == ciphertext)
        #expect(try AESCTR.decrypt(ciphertext, key: key, iv: counter) == SecretBytes(plaintext))
        // A partial final block: CTR output has the input's length.
        #expect(
            try AESCTR.encrypt(SecretBytes(plaintext.prefix(37)), key: key, iv: counter) == Array(ciphertext.prefix(37))
        )
        tally.ran()
        tally.report()
        #expect(tally.ran == 1)
    }

    @Test func counterWrapsAcrossAllSixteenBytes() throws {
        let key = SecretBytes(Array(0..<16))
        let zeros = SecretBytes([UInt8](repeating: 0, count: 48))
        // Block 1 after 00..00ff..ff (low 64 bits all ones) carries into the high half.
        let carry = try AESCTR.encrypt(
            zeros, key: key, iv: [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xff, count: 8))
        let high = try AESCTR.encrypt(zeros, key: key, iv: [0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8))
        #expect(Array(carry[16..<32]) == Array(high[0..<16]))
    }
}
