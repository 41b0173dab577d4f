/// Exact arithmetic on canonical unsigned decimal strings (wei, token units up to 2^256 - 1): what the
/// usage report needs (percentages, native units) without floating point touching an amount.
public enum DecimalAmount {
    /// `amount` (wei) as whole native units with 18 decimals, exact: "1.5", "0.000000000000000001", "0".
    public static func nativeUnits(_ amount: String) -> String { units(amount, decimals: 18) }

    /// `amount` base units as whole units of a token with `decimals` decimals, exact: `1500000` with 6 is
    /// "1.5"; trailing zeros of the fraction dropped.
    public static func units(_ amount: String, decimals: Int) -> String {
        let digits = normalized(amount)
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        let whole = padded.dropLast(decimals)
        var fraction = String(padded.suffix(decimals))
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
    }

    /// `used / limit` as a percentage with two decimals ("99.50"), truncated; "" when the limit is 0.
    public static func percent(used: String, limit: String) -> String {
        let limitDigits = normalized(limit)
        guard limitDigits != "0" else { return "" }
        let hundredths = divide(normalized(used) + "0000", by: limitDigits)
        let padded = String(repeating: "0", count: max(0, 3 - hundredths.count)) + hundredths
        return "\(padded.dropLast(2)).\(padded.suffix(2))"
    }

    /// Whether `a >= b`.
    public static func isAtLeast(_ a: String, _ b: String) -> Bool { compare(normalized(a), normalized(b)) >= 0 }

    /// `a + b`.
    public static func add(_ a: String, _ b: String) -> String {
        let x = Array(normalized(a).utf8.reversed())
        let y = Array(normalized(b).utf8.reversed())
        var result: [UInt8] = []
        var carry = 0
        for index in 0..<max(x.count, y.count) {
            let sum =
                (index < x.count ? Int(x[index] - 48) : 0) + (index < y.count ? Int(y[index] - 48) : 0) + carry
            result.append(UInt8(sum % 10 + 48))
            carry = sum / 10
        }
        if carry > 0 { result.append(UInt8(carry + 48)) }
        return normalized(String(decoding: result.reversed(), as: UTF8.self))
    }

    static func normalized(_ text: String) -> String {
        let digits = text.drop { $0 == "0" }
        return digits.isEmpty || !digits.allSatisfy(\.isASCIIDigit) ? "0" : String(digits)
    }

    static func compare(_ a: String, _ b: String) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    static func subtract(_ a: String, _ b: String) -> String {
        let x = Array(a.utf8.reversed())
        let y = Array(b.utf8.reversed())
        var result: [UInt8] = []
        var borrow = 0
        for index in 0..<x.count {
            var digit = Int(x[index] - 48) - borrow - (index < y.count ? Int(y[index] - 48) : 0)
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 10 }
            result.append(UInt8(digit + 48))
        }
        return normalized(String(decoding: result.reversed(), as: UTF8.self))
    }

    /// Long division of decimal strings: the integer quotient.
    static func divide(_ dividend: String, by divisor: String) -> String {
        var quotient = ""
        var remainder = "0"
        for digit in dividend {
            remainder = normalized(remainder + String(digit))
            var count = 0
            while compare(remainder, divisor) >= 0 {
                remainder = subtract(remainder, divisor)
                count += 1
            }
            quotient.append(Character(String(count)))
        }
        return normalized(quotient)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
