import Testing

@testable import OMSCore

/// `Identifier.make(_:milliseconds:random:)` writes its characters straight into the string: check it
/// against a plain RFC 4648 base32 (lowercase, unpadded) of the same 16 bytes.
@Suite struct IdentifierTests {
    /// The expected id: prefix, `_`, and the base32 of 6 big-endian millisecond bytes and 10 random bytes.
    static func expected(_ prefix: String, milliseconds: UInt64, random: [UInt8]) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var bytes: [UInt8] = (0..<6).map { UInt8(truncatingIfNeeded: milliseconds >> UInt64(8 * (5 - $0))) }
        bytes += random.prefix(10)
        var bitString = bytes.map { byte in
            let digits = String(byte, radix: 2)
            return String(repeating: "0", count: 8 - digits.count) + digits
        }.joined()
        while bitString.count % 5 != 0 { bitString += "0" }
        var characters: [Character] = []
        var index = bitString.startIndex
        while index < bitString.endIndex {
            let next = bitString.index(index, offsetBy: 5)
            characters.append(alphabet[Int(bitString[index..<next], radix: 2)!])
            index = next
        }
        return prefix + "_" + String(characters)
    }

    @Test func matchesPlainBase32() {
        var generator = SystemRandomNumberGenerator()
        var cases = 0
        for prefix in ["wal", "x", "credential"] {
            for milliseconds: UInt64 in [
                0, 1, 1_764_489_600_000, 0xffff_ffff_ffff, UInt64.random(in: 0...0xffff_ffff_ffff),
            ] {
                let random = (0..<10).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let made = random.withUnsafeBytes { Identifier.make(prefix, milliseconds: milliseconds, random: $0) }
                #expect(made == Self.expected(prefix, milliseconds: milliseconds, random: random))
                #expect(made.utf8.count == prefix.utf8.count + 27)
                cases += 1
            }
        }
        print("IdentifierTests: \(cases) cases")
        #expect(cases == 15)
    }
}
