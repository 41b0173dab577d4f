import TextFormats

extension TokenAmount {
    /// Why a string is not a canonical amount.
    public struct ParseError: CodedError, Sendable {
        /// The kind of problem.
        public enum Code: Sendable, Equatable {
            /// The string is empty.
            case empty
            /// A `+` or `-` sign; amounts are unsigned and written without one.
            case sign
            /// A character other than an ASCII digit (or a misplaced decimal point).
            case invalidCharacter
            /// A leading zero, as in "01" (only "0" itself may start with 0).
            case leadingZero
            /// The value exceeds 2^256 - 1.
            case overflow
            /// More fractional digits than the token's decimals.
            case tooManyFractionDigits
        }
        /// The kind of problem.
        public let code: Code
        /// The UTF-8 offset in the input where the problem is, when there is one.
        public let offset: Int?

        /// What is wrong and where, for the operator.
        public var message: String {
            let at = offset.map { " at offset \($0)" } ?? ""
            return switch code {
            case .empty: "token amount: empty string"
            case .sign: "token amount: a sign is not allowed\(at)"
            case .invalidCharacter: "token amount: not a decimal digit\(at)"
            case .leadingZero: "token amount: leading zero\(at)"
            case .overflow: "token amount: larger than 2^256 - 1"
            case .tooManyFractionDigits: "token amount: more fractional digits than the token has\(at)"
            }
        }
    }

    /// 10^19, the largest power of ten below 2^64: parsing and printing go 19 digits at a time.
    static let chunkBase: UInt64 = 10_000_000_000_000_000_000

    /// Parses a canonical decimal string: ASCII digits only, no sign, no whitespace, no leading zero
    /// (except "0"), at most 2^256 - 1.
    ///
    /// - Throws: `TokenAmount.ParseError` naming the problem and its offset.
    public init(parsing string: some StringProtocol) throws(ParseError) {
        let utf8 = Array(string.utf8)
        guard let first = utf8.first else { throw ParseError(code: .empty, offset: nil) }
        if first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { throw ParseError(code: .sign, offset: 0) }
        if first == UInt8(ascii: "0") && utf8.count > 1 && (utf8[1] &- UInt8(ascii: "0")) < 10 {
            throw ParseError(code: .leadingZero, offset: 0)
        }
        self = try Self.accumulate(utf8, from: 0, into: .zero)
    }

    /// Parses a canonical decimal string, or nil (see `init(parsing:)`).
    public init?(canonical string: some StringProtocol) {
        guard let value = try? TokenAmount(parsing: string) else { return nil }
        self = value
    }

    /// Parses an amount written in whole units, as in "1.5" with `decimals` 18 (= 1.5 × 10^18 base units).
    ///
    /// The integer part follows the canonical rules ("0.5", not ".5" or "00.5"); a fractional part, if any,
    /// has 1...`decimals` digits after a single ".". Exact: no floating point.
    /// - Throws: `TokenAmount.ParseError`.
    public init(units string: some StringProtocol, decimals: Int) throws(ParseError) {
        precondition(decimals >= 0 && decimals <= 77, "decimals must be in 0...77")
        let utf8 = Array(string.utf8)
        let dot = utf8.firstIndex(of: UInt8(ascii: "."))
        let integerPart = Array(utf8[..<(dot ?? utf8.count)])
        var value = try TokenAmount(parsing: String(decoding: integerPart, as: UTF8.self))
        var fraction: [UInt8] = []
        if let dot {
            fraction = Array(utf8[(dot + 1)...])
            guard !fraction.isEmpty else { throw ParseError(code: .invalidCharacter, offset: dot) }
            guard fraction.count <= decimals else {
                throw ParseError(code: .tooManyFractionDigits, offset: dot + 1 + decimals)
            }
        }
        // value * 10^decimals + fraction * 10^(decimals - fraction.count)
        let padded = fraction + [UInt8](repeating: UInt8(ascii: "0"), count: decimals - fraction.count)
        var scale = decimals
        while scale > 0 {
            let n = Swift.min(scale, 19)
            var factor: UInt64 = 1
            for _ in 0..<n { factor *= 10 }
            guard let scaled = value.multiplied(by: factor) else { throw ParseError(code: .overflow, offset: nil) }
            value = scaled
            scale -= n
        }
        let fractionValue = try Self.accumulate(padded, from: (dot ?? 0) + 1, into: .zero)
        guard let sum = value.adding(fractionValue) else { throw ParseError(code: .overflow, offset: nil) }
        self = sum
    }

    /// Folds ASCII digits into `start`, 19 at a time; `base` is the offset of `digits[0]` in the input.
    private static func accumulate(_ digits: [UInt8], from base: Int, into start: TokenAmount) throws(ParseError)
        -> TokenAmount
    {
        var value = start
        var index = 0
        while index < digits.count {
            let n = Swift.min(19, digits.count - index)
            var chunk: UInt64 = 0
            var factor: UInt64 = 1
            for i in index..<(index + n) {
                let d = digits[i] &- UInt8(ascii: "0")
                guard d < 10 else {
                    let code: ParseError.Code =
                        (digits[i] == UInt8(ascii: "+") || digits[i] == UInt8(ascii: "-")) ? .sign : .invalidCharacter
                    throw ParseError(code: code, offset: base + i)
                }
                chunk = chunk * 10 + UInt64(d)
                factor *= 10
            }
            guard let next = value.multiplied(by: factor, adding: chunk) else {
                throw ParseError(code: .overflow, offset: nil)
            }
            value = next
            index += n
        }
        return value
    }

    /// The decimal digits, without leading zeros ("0" for zero).
    public var decimalString: String {
        if isZero { return "0" }
        // Split into base-10^19 chunks, most significant last.
        var chunks: [UInt64] = []
        var rest = self
        while !rest.isZero {
            let (q, r) = rest.quotientAndRemainder(dividingBy: Self.chunkBase)
            chunks.append(r)
            rest = q
        }
        var out = String(chunks.removeLast())
        for chunk in chunks.reversed() {
            let digits = String(chunk)
            out += String(repeating: "0", count: 19 - digits.count) + digits
        }
        return out
    }

    /// The amount in whole units with `decimals` places, exact and with trailing fractional zeros removed:
    /// 10^15 with 18 decimals is "0.001", 2 × 10^18 is "2".
    public func formatted(decimals: Int) -> String {
        precondition(decimals >= 0, "decimals must not be negative")
        let digits = decimalString
        guard decimals > 0 else { return digits }
        let padded =
            digits.count > decimals ? digits : String(repeating: "0", count: decimals + 1 - digits.count) + digits
        let split = padded.index(padded.endIndex, offsetBy: -decimals)
        let whole = padded[..<split]
        var fraction = padded[split...]
        while fraction.last == "0" { fraction = fraction.dropLast() }
        return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
    }
}

extension TokenAmount: CustomStringConvertible, LosslessStringConvertible {
    /// The canonical decimal string.
    public var description: String { decimalString }

    /// Parses a canonical decimal string (see `init(parsing:)`).
    public init?(_ description: String) { self.init(canonical: description) }
}

extension TokenAmount: ExpressibleByIntegerLiteral {
    /// An amount from a non-negative integer literal that fits in 64 bits.
    public init(integerLiteral value: UInt64) { self.init(value) }
}

extension TokenAmount: Codable {
    /// Decodes a canonical decimal JSON string ("1000000000000000000"), refusing numbers and other forms.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            self = try TokenAmount(parsing: string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the canonical decimal string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(decimalString)
    }
}
