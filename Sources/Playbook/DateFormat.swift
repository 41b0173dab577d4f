import Foundation

/// A strftime-style date format for the `date('%Y-%m')` template filter, always in UTC.
///
/// Conversions: `%Y` year, `%m` month, `%d` day, `%H` hour, `%M` minute, `%S` second (all zero-padded),
/// `%j` day of the year, `%F` (`%Y-%m-%d`), `%T` (`%H:%M:%S`), `%s` Unix seconds and `%%`. Anything
/// else after `%` is refused when the playbook loads, so a typo never renders a wrong folder name.
public struct DateFormat: Sendable, Hashable, CustomStringConvertible {
    enum Part: Sendable, Hashable {
        case literal(String)
        case field(Character)
    }

    let parts: [Part]
    /// The format as written.
    public let description: String

    static let conversions: Set<Character> = ["Y", "m", "d", "H", "M", "S", "j", "F", "T", "s"]

    /// Parses `text`.
    /// - Throws: ``TemplateSyntaxError`` (offset within `text`) for an unknown or unfinished conversion.
    public init(parsing text: String) throws(TemplateSyntaxError) {
        var parts: [Part] = []
        var literal = ""
        var characters = Array(text)[...]
        var offset = 0
        while let character = characters.popFirst() {
            offset += 1
            guard character == "%" else {
                literal.append(character)
                continue
            }
            guard let conversion = characters.popFirst() else {
                throw TemplateSyntaxError("date format '\(text)' ends with '%'", offset: offset - 1)
            }
            offset += 1
            if conversion == "%" {
                literal.append("%")
                continue
            }
            guard Self.conversions.contains(conversion) else {
                throw TemplateSyntaxError(
                    "date format '\(text)': unknown conversion '%\(conversion)' (use %Y %m %d %H %M %S %j %F %T %s %%)",
                    offset: offset - 2)
            }
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
            parts.append(.field(conversion))
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        description = text
    }

    /// `seconds` (Unix time) formatted in UTC.
    public func format(_ seconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        let c = Self.utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let dayOfYear = Self.utc.ordinality(of: .day, in: .year, for: date) ?? 1
        func padded(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var out = ""
        for part in parts {
            switch part {
            case .literal(let text): out += text
            case .field("Y"): out += padded(c.year, 4)
            case .field("m"): out += padded(c.month, 2)
            case .field("d"): out += padded(c.day, 2)
            case .field("H"): out += padded(c.hour, 2)
            case .field("M"): out += padded(c.minute, 2)
            case .field("S"): out += padded(c.second, 2)
            case .field("j"): out += padded(dayOfYear, 3)
            case .field("F"): out += "\(padded(c.year, 4))-\(padded(c.month, 2))-\(padded(c.day, 2))"
            case .field("T"): out += "\(padded(c.hour, 2)):\(padded(c.minute, 2)):\(padded(c.second, 2))"
            case .field(_): out += String(seconds)
            }
        }
        return out
    }

    /// Unix seconds from a template value: an integer, or RFC 3339 text (`2026-11-30T03:16:48Z`).
    static func seconds(of value: TemplateValue) -> Int64? {
        switch value {
        case .int(let seconds): return Int64(exactly: seconds)
        case .string(let text):
            let formatter = ISO8601DateFormatter()
            return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
        default: return nil
        }
    }

    /// The Gregorian calendar in UTC, the one calendar of dates in playbooks and reports.
    public static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
