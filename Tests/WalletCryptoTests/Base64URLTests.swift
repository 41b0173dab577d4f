import Foundation
import Testing
import WalletCrypto

@Suite struct Base64URLTests {
    @Test func rfc4648VectorsWithoutPadding() throws {
        // RFC 4648 §10 test vectors, with the padding removed and the URL alphabet.
        let cases: [(String, String)] = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in cases {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test func usesTheUrlAlphabetAndMatchesFoundation() throws {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) }
            let standard = Data(bytes).base64EncodedString()
            let expected = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected)
            #expect(try Base64URL.decode(expected) == bytes)
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test func refusesPaddingForeignCharactersAndBadLengths() {
        #expect(throws: Base64URL.DecodingError(code: .invalidCharacter, offset: 2)) { try Base64URL.decode("Zg==") }
        #expect(throws: Base64URL.DecodingError(code: .invalidCharacter, offset: 1)) { try Base64URL.decode("Z+8") }
        #expect(throws: Base64URL.DecodingError(code: .invalidCharacter, offset: 0)) { try Base64URL.decode("/w") }
        #expect(throws: Base64URL.DecodingError(code: .invalidCharacter, offset: 2)) { try Base64URL.decode("Zm 9") }
        #expect(throws: Base64URL.DecodingError(code: .invalidLength, offset: 5)) { try Base64URL.decode("Zm9vY") }
        // "Zh" carries non-zero unused bits: "Zg" is the only encoding of "f".
        #expect(throws: Base64URL.DecodingError(code: .nonCanonical, offset: 1)) { try Base64URL.decode("Zh") }
        #expect(throws: Base64URL.DecodingError.self) { try Base64URL.decode("Zm9\u{e9}") }
    }
}
