import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct Base58Tests {
    @Test func bitcoinCoreVectors() throws {
        let file = "bitcoin_core_base58_encode_decode.json"
        let cases = try #require(try Fixtures.json("vectors/\(file)") as? [[String]])
        var tally = VectorTally(file)
        for pair in cases {
            let bytes = try #require(Hex.decode(pair[0]))
            #expect(Base58.encode(bytes) == pair[1], "\(pair[0])")
            #expect(try Base58.decode(pair[1]) == bytes, "\(pair[1])")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 21)
    }

    @Test func invalidCharactersAreRefused() {
        for (text, offset) in [("0", 0), ("1O", 1), ("abI", 2), ("l", 0), ("3EFU7m ", 6), (" 3EFU7m", 0), ("é", 0)] {
            do {
                _ = try Base58.decode(text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.offset == offset, "\(text)")
            }
        }
    }

    /// Cross-checks against a slow reference: repeated division of the byte string by 58.
    @Test func randomRoundTripsMatchSlowReference() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if length % 5 == 0 && length > 2 { bytes[0] = 0; bytes[1] = 0 }
            let encoded = Base58.encode(bytes)
            #expect(encoded == Self.reference(bytes), "length \(length)")
            #expect(try Base58.decode(encoded) == bytes)
        }
    }

    static func reference(_ bytes: [UInt8]) -> String {
        let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
        var number = Array(bytes.drop { $0 == 0 })
        var digits: [Character] = []
        while !number.isEmpty {
            var remainder = 0
            var quotient: [UInt8] = []
            for byte in number {
                let value = remainder * 256 + Int(byte)
                let q = value / 58
                remainder = value % 58
                if !quotient.isEmpty || q != 0 { quotient.append(UInt8(q)) }
            }
            digits.append(alphabet[remainder])
            number = quotient
        }
        return String(repeating: "1", count: bytes.prefix { $0 == 0 }.count) + String(digits.reversed())
    }
}
