/// A printf-style format with exactly one conversion, used by the `format('...')` template filter.
///
/// Grammar: literal text, `%%`, and one `%[-0+ ][width][.precision](d|i|x|X|o|s|f)`.
/// Implemented in Swift (no `String(format:)`) so a bad format is a load-time error, never a crash.
public struct FormatSpec: Sendable, Hashable, CustomStringConvertible {
    /// The format text as written.
    public let source: String
    let prefix: String
    let suffix: String
    let leftAlign: Bool
    let zeroPad: Bool
    let plusSign: Bool
    let spaceSign: Bool
    let width: Int
    let precision: Int?
    let conversion: Character

    public var description: String { source }

    /// Parses a format.
    ///
    /// - Throws: a message and the character offset of the problem inside the format text.
    public init(parsing source: String) throws(TemplateSyntaxError) {
        self.source = source
        let chars = Array(source)
        var prefix = ""
        var i = 0
        var spec: (Bool, Bool, Bool, Bool, Int, Int?, Character)?
        var suffix = ""
        while i < chars.count {
            let c = chars[i]
            guard c == "%" else {
                if spec == nil { prefix.append(c) } else { suffix.append(c) }
                i += 1
                continue
            }
            if i + 1 < chars.count, chars[i + 1] == "%" {
                if spec == nil { prefix.append("%") } else { suffix.append("%") }
                i += 2
                continue
            }
            guard spec == nil else {
                throw TemplateSyntaxError("format '\(source)' has more than one conversion", offset: i)
            }
            let start = i
            i += 1
            var left = false
            var zero = false
            var plus = false
            var space = false
            while i < chars.count, "-0+ ".contains(chars[i]) {
                switch chars[i] {
                case "-": left = true
                case "0": zero = true
                case "+": plus = true
                default: space = true
                }
                i += 1
            }
            var width = 0
            while i < chars.count, let d = chars[i].wholeNumberValue, chars[i].isASCII {
                width = min(width * 10 + d, 10_000)
                i += 1
            }
            var precision: Int?
            if i < chars.count, chars[i] == "." {
                i += 1
                var p = 0
                while i < chars.count, let d = chars[i].wholeNumberValue, chars[i].isASCII {
                    p = min(p * 10 + d, 10_000)
                    i += 1
                }
                precision = p
            }
            guard i < chars.count, "dixXosf".contains(chars[i]) else {
                throw TemplateSyntaxError(
                    "format '\(source)' has a bad conversion; use one of %d %i %x %X %o %s %f", offset: start)
            }
            guard width <= 256, (precision ?? 0) <= 64 else {
                throw TemplateSyntaxError(
                    "format '\(source)' has a width or precision that is too large", offset: start)
            }
            spec = (left, zero, plus, space, width, precision, chars[i])
            i += 1
        }
        guard let spec else {
            throw TemplateSyntaxError("format '\(source)' has no conversion such as %d or %s", offset: 0)
        }
        self.prefix = prefix
        self.suffix = suffix
        (leftAlign, zeroPad, plusSign, spaceSign, width, precision, conversion) = spec
    }

    /// Formats one value.
    ///
    /// - Throws: ``TemplateEvaluationError`` when the value does not fit the conversion (text for `%d`).
    public func apply(to value: TemplateValue) throws(TemplateEvaluationError) -> String {
        var body: String
        var numeric = true
        var negative = false
        switch conversion {
        case "s":
            numeric = false
            body = value.description
            if let precision { body = String(body.prefix(precision)) }
        case "f":
            guard let d = Self.double(value) else { throw mismatch(value, "a number") }
            negative = d < 0
            body = Self.fixed(abs(d), digits: precision ?? 6)
        default:
            guard let i = Self.int(value) else { throw mismatch(value, "an integer") }
            negative = i < 0
            let magnitude = i.magnitude
            switch conversion {
            case "x": body = String(magnitude, radix: 16)
            case "X": body = String(magnitude, radix: 16, uppercase: true)
            case "o": body = String(magnitude, radix: 8)
            default: body = String(magnitude)
            }
            if let precision, body.count < precision {
                body = String(repeating: "0", count: precision - body.count) + body
            }
        }
        var sign = ""
        if numeric {
            if negative { sign = "-" } else if plusSign { sign = "+" } else if spaceSign { sign = " " }
        }
        let length = sign.count + body.count
        if length < width {
            let pad = width - length
            if leftAlign {
                body = sign + body + String(repeating: " ", count: pad)
            } else if zeroPad, numeric, !(precision != nil && conversion != "f") {
                body = sign + String(repeating: "0", count: pad) + body
            } else {
                body = String(repeating: " ", count: pad) + sign + body
            }
        } else {
            body = sign + body
        }
        return prefix + body + suffix
    }

    private func mismatch(_ value: TemplateValue, _ expected: String) -> TemplateEvaluationError {
        TemplateEvaluationError("format '\(source)' needs \(expected), got \(value.kindName)")
    }

    private static func int(_ value: TemplateValue) -> Int? {
        switch value {
        case .int(let i): return i
        case .bool(let b): return b ? 1 : 0
        case .double(let d): return d == d.rounded() && abs(d) < 9e18 ? Int(d) : nil
        case .string(let s): return Int(s.trimmingCharacters(in: [" "]))
        default: return nil
        }
    }

    private static func double(_ value: TemplateValue) -> Double? {
        switch value {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .string(let s): return Double(s.trimmingCharacters(in: [" "]))
        default: return nil
        }
    }

    // Rounds half away from zero at `digits` decimals without Foundation formatting.
    private static func fixed(_ d: Double, digits: Int) -> String {
        guard d.isFinite else { return d.isNaN ? "nan" : "inf" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (d * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 1e18 else { return String(d) }
        let n = UInt64(scaled)
        let whole = n / UInt64(scale)
        guard digits > 0 else { return String(whole) }
        var fraction = String(n % UInt64(scale))
        fraction = String(repeating: "0", count: digits - fraction.count) + fraction
        return "\(whole).\(fraction)"
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
