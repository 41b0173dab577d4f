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

@Suite struct SecretBytesCopyTests {
    @Test func copiesContiguousAndLazyInputAlike() {
        let array: [UInt8] = [1, 2, 3, 4, 5]
        let fromArray = SecretBytes(array)
        let fromSlice = SecretBytes(array[1...3])
        let fromLazy = SecretBytes(array.lazy.map { $0 })
        #expect(fromArray.unsafeCopy() == array)
        #expect(fromSlice.unsafeCopy() == [2, 3, 4])
        #expect(fromLazy == fromArray)
        #expect(SecretBytes([UInt8]()).isEmpty)
    }
}
