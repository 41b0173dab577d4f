import Foundation
import TestSupport
import Testing
import WalletCrypto

@Suite struct CBORTests {
    /// RFC 8949 Appendix A examples of definite-length items (encoding is shortest form).
    static let rfc8949Examples: [(CBOR, String)] = [
        (0, "00"), (1, "01"), (10, "0a"), (23, "17"), (24, "1818"), (25, "1819"), (100, "1864"),
        (1000, "1903e8"), (1_000_000, "1a000f4240"), (1_000_000_000_000, "1b000000e8d4a51000"),
        (.unsigned(18_446_744_073_709_551_615), "1bffffffffffffffff"),
        (.negative(18_446_744_073_709_551_615), "3bffffffffffffffff"),
        (-1, "20"), (-10, "29"), (-100, "3863"), (-1000, "3903e7"),
        (false, "f4"), (true, "f5"), (nil, "f6"), (.undefined, "f7"),
        (.float(100_000.0), "fa47c35000"), (.float(1.1), "fb3ff199999999999a"),
        (.float(-4.1), "fbc010666666666666"), (.float(3.4028234663852886e+38), "fa7f7fffff"),
        (.tagged(1, 1_363_896_240), "c11a514b67b0"),
        (.bytes([]), "40"), (.bytes([1, 2, 3, 4]), "4401020304"),
        ("", "60"), ("a", "6161"), ("IETF", "6449455446"), ("\"\\", "62225c"), ("\u{fc}", "62c3bc"),
        ("\u{6c34}", "63e6b0b4"), ("\u{10151}", "64f0908591"),
        ([], "80"), ([1, 2, 3], "83010203"), ([1, [2, 3], [4, 5]], "8301820203820405"),
        (.array((1...25).map { CBOR.int(Int64($0)) }), "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
        ([:], "a0"), ([1: 2, 3: 4], "a201020304"), (["a": 1, "b": [2, 3]], "a26161016162820203"),
        (["a", ["b": "c"]], "826161a161626163"),
        (["a": "A", "b": "B", "c": "C", "d": "D", "e": "E"], "a56161614161626142616361436164614461656145"),
    ]

    @Test func rfc8949AppendixAExamplesRoundTrip() throws {
        var tally = VectorTally("RFC 8949 Appendix A (definite)")
        for (item, hex) in Self.rfc8949Examples {
            let bytes = try #require(TestSupport.Hex.decode(hex))
            #expect(item.encoded() == bytes, "encode \(hex)")
            #expect(try CBORDecoder().decode(bytes) == item, "decode \(hex)")
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == 43)
    }

    @Test func decodesHalfFloatsAndLongerForms() throws {
        let halves: [(String, Double)] = [
            ("f90000", 0), ("f98000", -0.0), ("f93c00", 1), ("f93e00", 1.5), ("f97bff", 65504),
            ("f90001", 5.960464477539063e-8), ("f90400", 0.00006103515625), ("f9c400", -4), ("f97c00", .infinity),
        ]
        for (hex, value) in halves {
            #expect(try CBORDecoder().decode(TestSupport.Hex.decode(hex)!) == .float(value), "\(hex)")
        }
        let nan = try CBORDecoder().decode(TestSupport.Hex.decode("f97e00")!)
        guard case .float(let value) = nan else { Issue.record("not a float"); return }
        #expect(value.isNaN)
        // Non-shortest heads are accepted on input (signatures cover the bytes as sent) ...
        #expect(
            try CBORDecoder().decode(TestSupport.Hex.decode("1900 17".replacingOccurrences(of: " ", with: ""))!) == 23)
        // ... and re-encoded in shortest form.
        #expect(CBOR.unsigned(23).encoded() == [0x17])
    }

    @Test func mapsKeepInsertionOrderAndSubscript() throws {
        let map: CBOR = [3: "x", 1: "y", "k": .bytes([9])]
        #expect(map.encoded() == TestSupport.Hex.decode("a3036178016179616b4109")!)
        let decoded = try CBORDecoder().decode(map.encoded())
        #expect(decoded.mapValue?.map(\.key) == [3, 1, "k"])
        #expect(decoded[1] == "y")
        #expect(decoded["k"]?.bytesValue == [9])
        #expect(decoded[.int(7)] == nil)
        #expect(CBOR.int(-35).intValue == -35)
        #expect(CBOR.negative(UInt64.max).intValue == nil)
    }

    @Test func everyTruncationOfACoseMessageIsRefusedWithAnOffset() throws {
        let json = try #require(Fixtures.json("vectors/cose_sign1_es384_example.json") as? [String: Any])
        let hex = try #require(json["cose_sign1_tagged_hex"] as? String)
        let full = try #require(TestSupport.Hex.decode(hex))
        #expect(try CBORDecoder().decode(full).encoded() == full)
        var tally = VectorTally("cose_sign1_es384_example.json truncations")
        for length in 0..<full.count {
            do {
                _ = try CBORDecoder().decode(full[0..<length])
                Issue.record("prefix of \(length) bytes decoded")
            } catch {
                #expect(error.code == .truncated, "\(length): \(error)")
                #expect(error.offset <= length)
            }
            tally.ran()
        }
        tally.report()
        #expect(tally.ran == full.count)
    }

    static func error(_ hex: String, limits: CBORDecoder.Limits = .init()) -> CBORError? {
        do {
            _ = try CBORDecoder(limits: limits).decode(TestSupport.Hex.decode(hex)!)
            return nil
        } catch {
            return error
        }
    }

    @Test func malformedInputIsRefusedWithCodeAndOffset() {
        let cases: [(String, CBORError.Code, Int)] = [
            ("", .truncated, 0),
            ("0001", .trailingBytes, 1),
            ("5f42010243030405ff", .indefiniteLength, 0),  // indefinite byte string
            ("9fff", .indefiniteLength, 0),
            ("bf6161f5ff", .indefiniteLength, 0),
            ("82019f02ff", .indefiniteLength, 2),
            ("1c", .reservedAdditionalInfo, 0),
            ("fc", .reservedAdditionalInfo, 0),
            ("ff", .indefiniteLength, 0),  // stray break
            ("f820", .unsupportedSimpleValue, 0),
            ("e0", .unsupportedSimpleValue, 0),
            ("62c328", .invalidUTF8, 0),
            ("a2010201 03".replacingOccurrences(of: " ", with: ""), .duplicateMapKey, 3),
            ("a14101 02".replacingOccurrences(of: " ", with: ""), .invalidMapKey, 1),
            ("a1f502", .invalidMapKey, 1),
            ("5a0000ffff00", .truncated, 0),  // declares 65535 bytes
            ("9bffffffffffffffff", .containerTooLarge, 0),  // 2^64-1 elements: refused before allocating
            ("990fff01", .truncated, 0),  // 4095 elements declared, 1 present
            ("82 01 83 02 03".replacingOccurrences(of: " ", with: ""), .truncated, 2),
            ("d2", .truncated, 1),  // the tagged item is missing
            ("1b0000", .truncated, 0),
        ]
        for (hex, code, offset) in cases {
            let error = Self.error(hex)
            #expect(error?.code == code, "\(hex): \(String(describing: error))")
            #expect(error?.offset == offset, "\(hex): \(String(describing: error))")
            #expect(error?.description.contains("offset \(offset)") == true)
        }
    }

    @Test func limitsAreEnforced() {
        let bomb = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
        #expect(throws: CBORError.self) { try CBORDecoder().decode(bomb) }
        do {
            _ = try CBORDecoder().decode(bomb)
        } catch {
            #expect(error.code == .depthExceeded)
            #expect(error.offset == 16)
        }
        let tagBomb = [UInt8](repeating: 0xD2, count: 50_000) + [0x00]
        #expect(
            Self.error(TestSupport.Hex.encode(tagBomb), limits: .init(maxInputSize: 1 << 20))?.code == .depthExceeded)
        #expect(Self.error("818100", limits: .init(maxDepth: 2))?.code == .depthExceeded)
        #expect(Self.error("818100", limits: .init(maxDepth: 3)) == nil)
        #expect(Self.error("83010203", limits: .init(maxContainerCount: 2))?.code == .containerTooLarge)
        #expect(Self.error("a201020304", limits: .init(maxContainerCount: 1))?.code == .containerTooLarge)
        #expect(Self.error("4401020304", limits: .init(maxInputSize: 4))?.code == .inputTooLarge)
        #expect(Self.error("4401020304", limits: .init(maxInputSize: 5)) == nil)
    }
}
