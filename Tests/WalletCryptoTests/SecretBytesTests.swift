import Testing
import WalletCrypto

@Suite struct SecretBytesTests {
    @Test func descriptionNeverShowsTheBytes() {
        let secret = SecretBytes([0xde, 0xad, 0xbe, 0xef])
        #expect(!secret.description.lowercased().contains("de"))
        #expect(!"\(secret)".contains("222"))
        #expect(String(reflecting: secret) == "SecretBytes(4 bytes, redacted)")
    }

    @Test func equalityComparesContentAndLength() {
        #expect(SecretBytes([1, 2, 3]) == SecretBytes([1, 2, 3]))
        #expect(SecretBytes([1, 2, 3]) != SecretBytes([1, 2, 4]))
        #expect(SecretBytes([1, 2, 3]) != SecretBytes([1, 2]))
        #expect(constantTimeEquals([UInt8](), [UInt8]()))
    }

    @Test func randomBytesDiffer() {
        let a = SecretBytes.random(count: 32)
        let b = SecretBytes.random(count: 32)
        #expect(a.count == 32)
        #expect(a != b)
    }

    @Test func wipeZeroesAnArray() {
        var bytes: [UInt8] = [9, 9, 9]
        SecretBytes.wipe(&bytes)
        #expect(bytes == [0, 0, 0])
    }
}
