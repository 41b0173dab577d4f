import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct EthereumAddressTests {
    static func spec() throws -> [String: [String]] {
        let root = try #require(try Fixtures.json("vectors/eip55_and_invalid_keys.json") as? [String: Any])
        let spec = try #require(root["eip55_spec_vectors"] as? [String: Any])
        return [
            "valid": try #require(spec["valid"] as? [String]),
            "flipped": try #require(spec["invalid_case_flipped"] as? [String]),
        ]
    }

    @Test func specVectorsChecksumAndParse() throws {
        var tally = VectorTally("eip55_and_invalid_keys.json eip55_spec_vectors")
        for string in try Self.spec()["valid"]! {
            let address = try EthereumAddress(string)
            #expect(address.checksummed == string)
            #expect(address.description == string)
            // From lowercase or uppercase (no checksum) it still renders the checksum.
            #expect(try EthereumAddress(string.lowercased()).checksummed == string)
            #expect(try EthereumAddress("0x" + string.dropFirst(2).uppercased()).checksummed == string)
            tally.ran()
        }
        for string in try Self.spec()["flipped"]! {
            #expect(throws: ECCError(.checksumMismatch, "")) { try EthereumAddress(string) }
            // Non-strict parsing accepts any case and corrects it.
            let lenient = try EthereumAddress(string, strict: false)
            #expect(lenient.checksummed.lowercased() == string.lowercased())
            #expect(lenient.checksummed != string)
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 12)
    }

    /// Flipping the case of any one letter of a valid mixed-case address breaks its checksum.
    @Test func everySingleCaseFlipIsRejected() throws {
        var flips = 0
        for string in try Self.spec()["valid"]! {
            var chars = Array(string)
            let body = String(chars[2...])
            guard body != body.lowercased() && body != body.uppercased() else { continue }
            for i in 2..<chars.count where chars[i].isLetter {
                let original = chars[i]
                chars[i] = Character(original.isUppercase ? original.lowercased() : original.uppercased())
                let flipped = String(chars)
                // A flip that makes the whole body single-case is accepted (no checksum present).
                let flippedBody = String(chars[2...])
                if flippedBody != flippedBody.lowercased() && flippedBody != flippedBody.uppercased() {
                    #expect(throws: ECCError(.checksumMismatch, "")) { try EthereumAddress(flipped) }
                    flips += 1
                }
                chars[i] = original
            }
        }
        #expect(flips > 50)
    }

    @Test func malformedStringsAreRefused() {
        let good = "0x52908400098527886E0F7030069857D2E4169EE7"
        for bad in [
            "", "0x", String(good.dropFirst(2)), String(good.dropLast()), good + "7", "0X" + good.dropFirst(2),
            "0x52908400098527886E0F7030069857D2E4169EEg", " " + good,
        ] {
            #expect(throws: ECCError(.invalidAddress, ""), "\(bad)") { try EthereumAddress(bad) }
        }
        #expect(throws: ECCError(.invalidAddress, "")) { try EthereumAddress(bytes: [UInt8](repeating: 0, count: 19)) }
    }

    @Test func codableUsesTheChecksummedString() throws {
        let address = try EthereumAddress("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
        let data = try JSONEncoder().encode([address])
        #expect(String(decoding: data, as: UTF8.self) == #"["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"]"#)
        #expect(try JSONDecoder().decode([EthereumAddress].self, from: data) == [address])
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(
                [EthereumAddress].self, from: Data(#"["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"]"#.utf8))
        }
    }
}
