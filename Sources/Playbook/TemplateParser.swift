/// Splits template text into literal and `${{ }}` segments and parses each expression.
enum TemplateParser {
    static func segments(of source: String) throws(TemplateSyntaxError) -> [Template.Segment] {
        let chars = Array(source)
        var segments: [Template.Segment] = []
        var literal = ""
        var i = 0
        func opens(at j: Int) -> Bool {
            j + 2 < chars.count && chars[j] == "$" && chars[j + 1] == "{" && chars[j + 2] == "{"
        }
        while i < chars.count {
            if chars[i] == "$", opens(at: i + 1) {
                literal += "${{"  // `$${{` is an escaped literal `${{`
                i += 4
                continue
            }
            guard opens(at: i) else {
                literal.append(chars[i])
                i += 1
                continue
            }
            let open = i
            var j = i + 3
            var quote: Character?
            var close: Int?
            while j < chars.count {
                let c = chars[j]
                if let q = quote {
                    if c == "\\" { j += 1 } else if c == q { quote = nil }
                } else if c == "'" || c == "\"" {
                    quote = c
                } else if c == "}", j + 1 < chars.count, chars[j + 1] == "}" {
                    close = j
                    break
                }
                j += 1
            }
            guard let close else { throw TemplateSyntaxError("unclosed '${{' (missing '}}')", offset: open) }
            if !literal.isEmpty {
                segments.append(.literal(literal))
                literal = ""
            }
            var parser = ExpressionParser(chars: chars, start: open + 3, end: close)
            let expression = try parser.parseAll(open: open)
            segments.append(.expression(expression, offset: open))
            i = close + 2
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        return segments
    }
}

/// A recursive-descent parser over the characters between `${{` and `}}`.
private struct ExpressionParser {
    enum Token: Equatable {
        case identifier(String)
        case string(String)
        case number(TemplateValue)
        case symbol(String)
        case end
    }

    let chars: [Character]
    var position: Int
    let end: Int
    var token: Token = .end
    var tokenStart: Int = 0

    init(chars: [Character], start: Int, end: Int) {
        self.chars = chars
        self.position = start
        self.end = end
    }

    mutating func parseAll(open: Int) throws(TemplateSyntaxError) -> TemplateExpression {
        try advance()
        guard token != .end else { throw TemplateSyntaxError("empty expression in '${{ }}'", offset: open) }
        let expression = try parseOr()
        guard token == .end else { throw TemplateSyntaxError("unexpected \(describe(token))", offset: tokenStart) }
        return expression
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .identifier(let s): return "'\(s)'"
        case .string(let s): return "string '\(s)'"
        case .number(let n): return "number \(n)"
        case .symbol(let s): return "'\(s)'"
        case .end: return "end of expression"
        }
    }

    private static func isIdentifierStart(_ c: Character) -> Bool { c == "_" || (c.isASCII && c.isLetter) }
    private static func isIdentifierPart(_ c: Character) -> Bool {
        c == "_" || c == "-" || (c.isASCII && (c.isLetter || c.isNumber))
    }

    mutating func advance() throws(TemplateSyntaxError) {
        while position < end, chars[position].isWhitespace { position += 1 }
        tokenStart = position
        guard position < end else {
            token = .end
            return
        }
        let c = chars[position]
        if Self.isIdentifierStart(c) {
            var name = ""
            while position < end, Self.isIdentifierPart(chars[position]) {
                name.append(chars[position])
                position += 1
            }
            token = .identifier(name)
        } else if c.isASCII, c.isNumber || (c == "-" && position + 1 < end && chars[position + 1].isNumber) {
            var text = String(c)
            position += 1
            while position < end, chars[position].isASCII, chars[position].isNumber || chars[position] == "." {
                text.append(chars[position])
                position += 1
            }
            if let i = Int(text) {
                token = .number(.int(i))
            } else if let d = Double(text) {
                token = .number(.double(d))
            } else {
                throw TemplateSyntaxError("bad number '\(text)'", offset: tokenStart)
            }
        } else if c == "'" || c == "\"" {
            position += 1
            var text = ""
            while true {
                guard position < end else { throw TemplateSyntaxError("unclosed string", offset: tokenStart) }
                let d = chars[position]
                position += 1
                if d == c { break }
                if d == "\\", position < end {
                    let e = chars[position]
                    position += 1
                    switch e {
                    case "n": text.append("\n")
                    case "t": text.append("\t")
                    default: text.append(e)
                    }
                } else {
                    text.append(d)
                }
            }
            token = .string(text)
        } else {
            let two = position + 1 < end ? String([c, chars[position + 1]]) : ""
            if ["==", "!=", "&&", "||"].contains(two) {
                token = .symbol(two)
                position += 2
            } else if "|.()[],!".contains(c) {
                token = .symbol(String(c))
                position += 1
            } else {
                throw TemplateSyntaxError("unexpected character '\(c)'", offset: tokenStart)
            }
        }
    }

    mutating func parseOr() throws(TemplateSyntaxError) -> TemplateExpression {
        var left = try parseAnd()
        while token == .symbol("||") {
            try advance()
            left = .or(left, try parseAnd())
        }
        return left
    }

    mutating func parseAnd() throws(TemplateSyntaxError) -> TemplateExpression {
        var left = try parseComparison()
        while token == .symbol("&&") {
            try advance()
            left = .and(left, try parseComparison())
        }
        return left
    }

    mutating func parseComparison() throws(TemplateSyntaxError) -> TemplateExpression {
        let left = try parseUnary()
        if token == .symbol("==") {
            try advance()
            return .equal(left, try parseUnary())
        }
        if token == .symbol("!=") {
            try advance()
            return .notEqual(left, try parseUnary())
        }
        return left
    }

    mutating func parseUnary() throws(TemplateSyntaxError) -> TemplateExpression {
        if token == .symbol("!") {
            try advance()
            return .not(try parseUnary())
        }
        var value = try parsePrimary()
        while token == .symbol("|") {
            try advance()
            let start = tokenStart
            guard case .identifier(let name) = token else {
                throw TemplateSyntaxError("expected a filter name after '|'", offset: tokenStart)
            }
            try advance()
            var arguments: [(TemplateValue, Int)] = []
            if token == .symbol("(") {
                try advance()
                while token != .symbol(")") {
                    let at = tokenStart
                    switch token {
                    case .string(let s): arguments.append((.string(s), at))
                    case .number(let n): arguments.append((n, at))
                    case .identifier("true"): arguments.append((.bool(true), at))
                    case .identifier("false"): arguments.append((.bool(false), at))
                    case .identifier("null"): arguments.append((.null, at))
                    default:
                        throw TemplateSyntaxError(
                            "filter arguments must be literals, found \(describe(token))", offset: at)
                    }
                    try advance()
                    if token == .symbol(",") {
                        try advance()
                    } else if token != .symbol(")") {
                        throw TemplateSyntaxError("expected ',' or ')' in filter arguments", offset: tokenStart)
                    }
                }
                try advance()
            }
            value = .filter(value, try Self.filter(name, arguments, at: start), offset: start)
        }
        return value
    }

    private static func filter(
        _ name: String, _ arguments: [(TemplateValue, Int)], at offset: Int
    ) throws(TemplateSyntaxError) -> TemplateFilter {
        func arity(_ n: Int, _ usage: String) throws(TemplateSyntaxError) {
            guard arguments.count == n else {
                throw TemplateSyntaxError(
                    "filter '\(name)' takes \(n == 0 ? "no arguments" : "\(n) argument"): \(usage)", offset: offset)
            }
        }
        func text(_ usage: String) throws(TemplateSyntaxError) -> (String, Int) {
            try arity(1, usage)
            guard case .string(let s) = arguments[0].0 else {
                throw TemplateSyntaxError("filter '\(name)' needs a string argument: \(usage)", offset: arguments[0].1)
            }
            return (s, arguments[0].1)
        }
        switch name {
        case "default":
            try arity(1, "default('value')")
            return .default(arguments[0].0)
        case "lower":
            try arity(0, "lower")
            return .lower
        case "upper":
            try arity(0, "upper")
            return .upper
        case "trim":
            try arity(0, "trim")
            return .trim
        case "join":
            return .join(try text("join(', ')").0)
        case "date":
            let (format, at) = try text("date('%Y-%m')")
            do {
                return .date(try DateFormat(parsing: format))
            } catch {
                throw TemplateSyntaxError(error.message, offset: at + 1 + error.offset)
            }
        case "format":
            let (format, at) = try text("format('%05d')")
            do {
                return .format(try FormatSpec(parsing: format))
            } catch {
                throw TemplateSyntaxError(error.message, offset: at)
            }
        default:
            throw TemplateSyntaxError(
                "unknown filter '\(name)'" + Suggestion.didYouMean(name, in: TemplateFilter.names), offset: offset)
        }
    }

    mutating func parsePrimary() throws(TemplateSyntaxError) -> TemplateExpression {
        let start = tokenStart
        switch token {
        case .string(let s):
            try advance()
            return .literal(.string(s))
        case .number(let n):
            try advance()
            return .literal(n)
        case .symbol("("):
            try advance()
            let inner = try parseOr()
            guard token == .symbol(")") else { throw TemplateSyntaxError("expected ')'", offset: tokenStart) }
            try advance()
            return inner
        case .identifier(let name):
            try advance()
            switch name {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null": return .literal(.null)
            default: break
            }
            var path = [name]
            while true {
                if token == .symbol(".") {
                    try advance()
                    guard case .identifier(let part) = token else {
                        throw TemplateSyntaxError("expected a name after '.'", offset: tokenStart)
                    }
                    path.append(part)
                    try advance()
                } else if token == .symbol("[") {
                    try advance()
                    switch token {
                    case .string(let key): path.append(key)
                    case .number(.int(let index)): path.append(String(index))
                    default:
                        throw TemplateSyntaxError("expected a quoted name or an index in '[ ]'", offset: tokenStart)
                    }
                    try advance()
                    guard token == .symbol("]") else { throw TemplateSyntaxError("expected ']'", offset: tokenStart) }
                    try advance()
                } else {
                    break
                }
            }
            return .path(path, offset: start)
        default:
            throw TemplateSyntaxError("expected a value, found \(describe(token))", offset: start)
        }
    }
}
