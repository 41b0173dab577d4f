import Foundation
import TestSupport
import Testing
import WalletCrypto

@testable import KeyFormats

/// BIP-39's NFKD without `String`s (`BIP39.normalized`) against two other implementations: Foundation's
/// (ICU's, the one it replaced) for every assigned scalar alone and for mixed strings, and Python's
/// `unicodedata.normalize("NFKD", ...)` for the same strings.
@Suite struct NFKDTests {
    static func ours(_ text: String) throws -> [UInt8] {
        try BIP39.normalized(SecretBytes(Array(text.utf8)), what: "text").unsafeCopy()
    }

    @Test func everyAssignedScalarAloneIsFoundationsNFKD() throws {
        var checked = 0
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            switch scalar.properties.generalCategory {
            case .unassigned, .privateUse, .surrogate: continue
            default: break
            }
            let text = String(Character(scalar))
            let expected = Array(text.decomposedStringWithCompatibilityMapping.utf8)
            if try Self.ours(text) != expected {
                Issue.record("U+\(String(value, radix: 16, uppercase: true)): not Foundation's NFKD")
            }
            checked += 1
        }
        #expect(checked > 100_000, "\(checked) scalars")
    }

    /// Strings of up to 12 scalars drawn from combining marks of several classes (out of order on
    /// purpose), precomposed and compatibility characters, Hangul syllables and ASCII: the decompositions
    /// concatenated, then the marks put in canonical order across scalars.
    @Test func mixedStringsMatchFoundationAndPython() throws {
        let pool: [UInt32] = [
            0x61, 0x20, 0x7A, 0xE9, 0xC5, 0x1E69, 0x1E0B, 0x0301, 0x0323, 0x0345, 0x0327, 0x05B0, 0x0F71, 0x0F72,
            0x0F74, 0x031B, 0x0300, 0xFB01, 0xFDFA, 0x2460, 0x33A1, 0xFF21, 0xAC00, 0xAC01, 0xD7A3, 0x1100, 0x1161,
            0x11A8, 0x3250, 0x00BD, 0x2126, 0x1F80, 0x0390, 0x212B, 0xF900, 0x1D15E, 0x2FA1D, 0x0958,
        ]
        var state: UInt64 = 0x2718_2818_2845_9045
        func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((mixed ^ (mixed >> 31)) % UInt64(bound))
        }
        var strings: [String] = []
        for _ in 0..<2_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<(1 + next(12)) { scalars.append(Unicode.Scalar(pool[next(pool.count)])!) }
            // Non-ASCII throughout, so the normalization runs (ASCII is returned as it is).
            scalars.append(Unicode.Scalar(0xE9)!)
            strings.append(String(scalars))
        }
        for text in strings {
            #expect(
                try Self.ours(text) == Array(text.decomposedStringWithCompatibilityMapping.utf8),
                "\(text.debugDescription)")
        }
        let script = """
            import json, sys, unicodedata
            print(json.dumps([unicodedata.normalize("NFKD", s) for s in json.load(sys.stdin)]))
            """
        let input = String(decoding: try JSONSerialization.data(withJSONObject: strings), as: UTF8.self)
        let python =
            try JSONSerialization.jsonObject(with: Data(try PythonOracle.run(script, stdin: input).utf8)) as! [String]
        #expect(python.count == strings.count)
        for (text, expected) in zip(strings, python) {
            #expect(try Self.ours(text) == Array(expected.utf8), "\(text.debugDescription)")
        }
    }

    @Test func invalidUTF8IsRefusedAndASCIIIsItsOwnForm() throws {
        for bytes: [UInt8] in [[0xFF, 0xFE], [0x61, 0xC3], [0xED, 0xA0, 0x80], [0xC0, 0xAF]] {
            #expect(throws: KeyFormatError(.invalidPassphrase, "")) {
                try BIP39.normalized(SecretBytes(bytes), what: "passphrase")
            }
        }
        #expect(try Self.ours("TREZOR phrase") == Array("TREZOR phrase".utf8))
        #expect(try Self.ours("") == [])
    }
}
