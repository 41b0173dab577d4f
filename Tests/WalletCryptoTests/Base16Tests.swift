import Testing
import WalletCrypto

@Suite struct Base16Tests {
    @Test func encodesLowercase() {
        #expect(Base16.encode([0x00, 0xAB, 0xff, 0x10]) == "00abff10")
        #expect(Base16.encode([UInt8]()) == "")
        #expect(Base16.encodePrefixed([0xde, 0xad]) == "0xdead")
    }

    @Test func decodesEitherCaseWithOptionalPrefix() throws {
        #expect(try Base16.decode("00abFF10") == [0x00, 0xab, 0xff, 0x10])
        #expect(try Base16.decode("0xDEAD") == [0xde, 0xad])
        #expect(try Base16.decode("0Xdead") == [0xde, 0xad])
        #expect(try Base16.decode("") == [])
        #expect(try Base16.decode("0x") == [])
        #expect(try Base16.decode("0x01", requirePrefix: true) == [1])
    }

    /// The error `decode` throws for `input`, or nil if it accepted it.
    func failure(_ input: String, requirePrefix: Bool = false) -> Base16.DecodingError? {
        do {
            _ = try Base16.decode(input, requirePrefix: requirePrefix)
            return nil
        } catch {
            return error
        }
    }

    @Test func refusesMalformedInput() {
        #expect(failure("abc")?.code == .oddLength)
        #expect(failure("0x0")?.code == .oddLength)
        #expect(failure("0g")?.code == .invalidCharacter)
        #expect(failure("0g")?.offset == 1)
        #expect(failure(" 0")?.offset == 0)
        #expect(failure("0x0x")?.offset == 3)
        #expect(failure("00 ")?.code == .oddLength)
        #expect(failure("00", requirePrefix: true)?.code == .missingPrefix)
        #expect(failure("12z4")?.description.contains("offset 2") == true)
    }
}
