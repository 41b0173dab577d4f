import Foundation
import Testing
import WalletCrypto

@Suite struct TokenAmountTests {
    static let max = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
    static let twoTo256 = "115792089237316195423570985008687907853269984665640564039457584007913129639936"

    func code(_ text: String) -> TokenAmount.ParseError.Code? {
        do {
            _ = try TokenAmount(parsing: text)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func boundariesRoundTrip() throws {
        #expect(try TokenAmount(parsing: Self.max) == .max)
        #expect(TokenAmount.max.description == Self.max)
        #expect(try TokenAmount(parsing: "0") == .zero)
        #expect(TokenAmount.zero.description == "0")
        #expect(TokenAmount(UInt64.max).description == "18446744073709551615")
        #expect(try TokenAmount(parsing: "18446744073709551616").description == "18446744073709551616")
        #expect(TokenAmount.max.bigEndianBytes == [UInt8](repeating: 0xff, count: 32))
        #expect(TokenAmount(bigEndianBytes: TokenAmount.max.bigEndianBytes) == .max)
        #expect(TokenAmount(bigEndianBytes: [1, 0]) == TokenAmount(256))
        #expect(TokenAmount(bigEndianBytes: [UInt8](repeating: 0, count: 33)) == nil)
    }

    @Test func nonCanonicalStringsAreRefused() {
        #expect(code(Self.twoTo256) == .overflow)
        #expect(code(Self.max + "0") == .overflow)
        #expect(code("01") == .leadingZero)
        #expect(code("00") == .leadingZero)
        #expect(code("+1") == .sign)
        #expect(code("-1") == .sign)
        #expect(code("") == .empty)
        #expect(code(" 1") == .invalidCharacter)
        #expect(code("1 ") == .invalidCharacter)
        #expect(code("1.0") == .invalidCharacter)
        #expect(code("1e3") == .invalidCharacter)
        #expect(code("0x10") == .invalidCharacter)
        #expect(code("١") == .invalidCharacter)  // Arabic-Indic digit one: not ASCII
        #expect(TokenAmount(canonical: "12") == TokenAmount(12))
        #expect(TokenAmount(canonical: "012") == nil)
        #expect(TokenAmount("1_000") == nil)
    }

    @Test func checkedArithmeticNeverWraps() {
        #expect(TokenAmount.max.adding(1) == nil)
        #expect(TokenAmount.max.adding(.zero) == .max)
        #expect(TokenAmount.zero.subtracting(1) == nil)
        #expect(TokenAmount(5).subtracting(6) == nil)
        #expect(TokenAmount.max.subtracting(.max) == .zero)
        #expect(TokenAmount(UInt64.max).adding(1)?.description == "18446744073709551616")
        #expect(TokenAmount.max.multiplied(by: 2) == nil)
        #expect(TokenAmount.max.multiplied(by: 1) == .max)
    }

    @Test func comparison() throws {
        let big = try TokenAmount(parsing: "18446744073709551616")
        #expect(TokenAmount(UInt64.max) < big)
        #expect(big < .max)
        #expect(!(TokenAmount.max < .max))
        #expect([TokenAmount.max, 3, big, .zero].sorted() == [.zero, 3, big, .max])
    }

    @Test func formatsWholeUnitsExactly() throws {
        #expect(TokenAmount(1_000_000_000_000_000).formatted(decimals: 18) == "0.001")
        #expect(TokenAmount(2_000_000_000_000_000_000).formatted(decimals: 18) == "2")
        #expect(TokenAmount(1_500_000_000_000_000_000).formatted(decimals: 18) == "1.5")
        #expect(TokenAmount(1).formatted(decimals: 18) == "0.000000000000000001")
        #expect(TokenAmount.zero.formatted(decimals: 18) == "0")
        #expect(TokenAmount(123).formatted(decimals: 0) == "123")
        #expect(TokenAmount(123).formatted(decimals: 2) == "1.23")
        #expect(TokenAmount(123).formatted(decimals: 3) == "0.123")
        #expect(
            TokenAmount.max.formatted(decimals: 18)
                == "115792089237316195423570985008687907853269984665640564039457.584007913129639935")
    }

    @Test func parsesWholeUnitsExactly() throws {
        #expect(try TokenAmount(units: "0.001", decimals: 18) == TokenAmount(1_000_000_000_000_000))
        #expect(try TokenAmount(units: "1.5", decimals: 18) == TokenAmount(1_500_000_000_000_000_000))
        #expect(try TokenAmount(units: "7", decimals: 6) == TokenAmount(7_000_000))
        #expect(try TokenAmount(units: "0.000000000000000001", decimals: 18) == 1)
        let max = "115792089237316195423570985008687907853269984665640564039457.584007913129639935"
        #expect(try TokenAmount(units: max, decimals: 18) == .max)
        for (text, expected) in [
            ("0.0000000000000000001", TokenAmount.ParseError.Code.tooManyFractionDigits), ("1.", .invalidCharacter),
            (".5", .empty), ("01.5", .leadingZero), ("1.2.3", .invalidCharacter), ("-1.5", .sign),
            ("115792089237316195423570985008687907853269984665640564039457.584007913129639936", .overflow),
        ] {
            do {
                _ = try TokenAmount(units: text, decimals: 18)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.code == expected, "\(text)")
            }
        }
    }

    @Test func codableIsAJSONString() throws {
        let data = try JSONEncoder().encode(["v": TokenAmount.max])
        #expect(String(decoding: data, as: UTF8.self) == #"{"v":"\#(Self.max)"}"#)
        #expect(try JSONDecoder().decode([String: TokenAmount].self, from: data)["v"] == .max)
        for bad in [#"{"v":1}"#, #"{"v":"01"}"#, #"{"v":"-1"}"#, #"{"v":"\#(Self.twoTo256)"}"#] {
            #expect(throws: DecodingError.self, "\(bad)") {
                try JSONDecoder().decode([String: TokenAmount].self, from: Data(bad.utf8))
            }
        }
    }

    /// Random amounts of every size, cross-checked against schoolbook decimal-string arithmetic.
    @Test func randomArithmeticMatchesDecimalReference() throws {
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<400 {
            let a = Self.randomDecimal(&generator)
            let b = Self.randomDecimal(&generator)
            let x = try TokenAmount(parsing: a)
            let y = try TokenAmount(parsing: b)
            #expect(x.description == a)
            let sum = Self.add(a, b)
            let fits = Self.compare(sum, Self.max) <= 0
            #expect(x.adding(y)?.description == (fits ? sum : nil), "\(a) + \(b)")
            let order = Self.compare(a, b)
            #expect((x < y) == (order < 0))
            #expect((x == y) == (order == 0))
            #expect(x.subtracting(y)?.description == (order >= 0 ? Self.subtract(a, b) : nil), "\(a) - \(b)")
            // Sums that land exactly on 2^256 - 1 and one past it.
            let complement = try TokenAmount(parsing: Self.subtract(Self.max, a))
            #expect(x.adding(complement) == .max)
            if complement < .max { #expect(x.adding(complement.adding(1)!) == nil, "\(a) + complement + 1") }
            checked += 1
        }
        #expect(checked == 400)
    }

    /// A canonical decimal in [0, 2^256 - 1], with lengths spread over 1...78 digits.
    static func randomDecimal(_ generator: inout SystemRandomNumberGenerator) -> String {
        let length = Int.random(in: 1...78, using: &generator)
        while true {
            var digits = (0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) }
            if length > 1 && digits[0] == "0" { digits[0] = "1" }
            let s = String(digits)
            if compare(s, max) <= 0 { return s }
        }
    }

    static func compare(_ a: String, _ b: String) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    static func add(_ a: String, _ b: String) -> String {
        let x = a.reversed().map { Int(String($0))! }
        let y = b.reversed().map { Int(String($0))! }
        var out: [Int] = []
        var carry = 0
        for i in 0..<Swift.max(x.count, y.count) {
            let s = (i < x.count ? x[i] : 0) + (i < y.count ? y[i] : 0) + carry
            out.append(s % 10)
            carry = s / 10
        }
        if carry > 0 { out.append(carry) }
        return String(out.reversed().map { Character(String($0)) })
    }

    /// a - b for a >= b.
    static func subtract(_ a: String, _ b: String) -> String {
        let x = a.reversed().map { Int(String($0))! }
        let y = b.reversed().map { Int(String($0))! }
        var out: [Int] = []
        var borrow = 0
        for i in 0..<x.count {
            var d = x[i] - (i < y.count ? y[i] : 0) - borrow
            borrow = d < 0 ? 1 : 0
            if d < 0 { d += 10 }
            out.append(d)
        }
        while out.count > 1 && out.last == 0 { out.removeLast() }
        return String(out.reversed().map { Character(String($0)) })
    }
}
