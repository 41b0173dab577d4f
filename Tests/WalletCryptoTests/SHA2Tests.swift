import TestSupport
import Testing

@testable import WalletCrypto

/// FIPS 180-4 example values ("abc", the 448-bit message, the empty string) and incremental hashing.
@Suite struct SHA2Tests {
    static let twoBlock = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)

    /// FIPS 180-4's SHA-256 answers for "abc", the empty string and the 448-bit message.
    static func expectSHA256KnownAnswers() {
        #expect(
            Hex.encode(SHA256.hash(data: Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Hex.encode(SHA256.hash(data: [UInt8]()))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Hex.encode(SHA256.hash(data: Self.twoBlock))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func sha256KnownAnswers() {
        Self.expectSHA256KnownAnswers()
    }

    /// One-shot hashes go through libsodium up to `SHA256.oneBlockInput` bytes and OpenSSL beyond: both agree
    /// with the incremental hash (always OpenSSL) at every length across the switch, and with FIPS 180-4's
    /// million "a".
    @Test func sha256ShortAndLongInputsAgree() {
        let bytes = (0..<(SHA256.oneBlockInput + 200)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var mismatches: [Int] = []
        for count in 0...bytes.count {
            var incremental = SHA256()
            incremental.update(data: bytes[..<count])
            let oneShot = SHA256.hash(data: bytes[..<count])
            var intoBuffer = [UInt8](repeating: 0, count: 32)
            bytes.withUnsafeBytes { input in
                intoBuffer.withUnsafeMutableBytes { digest in
                    SHA256.hash(UnsafeRawBufferPointer(rebasing: input[..<count]), into: digest.baseAddress!)
                }
            }
            if oneShot != incremental.finalize() || intoBuffer != oneShot {
                mismatches.append(count)
            }
        }
        #expect(mismatches.isEmpty)
        #expect(
            Hex.encode(SHA256.hash(data: [UInt8](repeating: 0x61, count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Switched off, one-block inputs go through OpenSSL too, and every length still gives the digest of the
    /// incremental hash and FIPS 180-4's "abc".
    @Test func sha256OneBlockSwitchRoutesToOpenSSL() {
        #expect(SHA256.route(count: 20) == .libsodium)
        #expect(SHA256.route(count: SHA256.oneBlockInput + 1) == .openSSL)
        SHA256.hashesOneBlockThroughLibsodium = false
        defer { SHA256.hashesOneBlockThroughLibsodium = true }
        #expect(SHA256.route(count: 0) == .openSSL)
        #expect(SHA256.route(count: 20) == .openSSL)
        Self.expectSHA256KnownAnswers()
        let bytes = (0...SHA256.oneBlockInput + 9).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
        var mismatches: [Int] = []
        for count in 0...bytes.count {
            var incremental = SHA256()
            incremental.update(data: bytes[..<count])
            if SHA256.hash(data: bytes[..<count]) != incremental.finalize() { mismatches.append(count) }
        }
        #expect(mismatches.isEmpty)
    }

    @Test func sha384KnownAnswers() {
        #expect(
            Hex.encode(SHA384.hash(data: Array("abc".utf8)))
                == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
    }

    @Test func sha512KnownAnswers() {
        #expect(
            Hex.encode(SHA512.hash(data: Array("abc".utf8)))
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        )
    }

    @Test func incrementalMatchesOneShotAndKeepsValueSemantics() {
        var hasher = SHA256()
        hasher.update(data: Self.twoBlock[0..<10])
        let snapshot = hasher
        hasher.update(data: Self.twoBlock[10...])
        #expect(hasher.finalize() == SHA256.hash(data: Self.twoBlock))
        #expect(snapshot.finalize() == SHA256.hash(data: Self.twoBlock[0..<10]))
        // finalize does not consume the state.
        #expect(hasher.finalize() == SHA256.hash(data: Self.twoBlock))

        var h384 = SHA384()
        var h512 = SHA512()
        for byte in Self.twoBlock {
            h384.update(data: [byte])
            h512.update(data: [byte])
        }
        #expect(h384.finalize() == SHA384.hash(data: Self.twoBlock))
        #expect(h512.finalize() == SHA512.hash(data: Self.twoBlock))
    }
}
