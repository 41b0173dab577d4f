import Foundation

/// The type of an option's or argument's value, checked while parsing so a bad value is a usage
/// error (exit 64) before the command runs.
public enum ValueType: Sendable, Hashable {
    /// Any text.
    case string
    /// A decimal integer, optionally within bounds.
    case integer(min: Int? = nil, max: Int? = nil)
    /// One of a fixed set of words.
    case choice([String])
    /// `key=value` with a non-empty key (for repeated options such as `--var k=v`).
    case keyValue
    /// An absolute URL with one of the given schemes and a host.
    case url(schemes: [String])

    /// Why `value` is not of this type, or nil when it is.
    func problem(with value: String) -> String? {
        switch self {
        case .string:
            return nil
        case .integer(let min, let max):
            guard let number = Int(value) else { return "expected an integer\(Self.bounds(min, max))" }
            if let min, number < min { return "expected an integer\(Self.bounds(min, max))" }
            if let max, number > max { return "expected an integer\(Self.bounds(min, max))" }
            return nil
        case .choice(let choices):
            guard !choices.contains(value) else { return nil }
            var message = "expected one of: \(choices.joined(separator: ", "))"
            if let guess = Suggestion.closest(to: value, among: choices) { message += " (did you mean '\(guess)'?)" }
            return message
        case .keyValue:
            guard let equals = value.firstIndex(of: "="), equals != value.startIndex else {
                return "expected key=value"
            }
            return nil
        case .url(let schemes):
            guard let url = URL(string: value), let scheme = url.scheme?.lowercased(), schemes.contains(scheme),
                let host = url.host, !host.isEmpty
            else { return "expected a URL starting with \(schemes.map { "\($0)://" }.joined(separator: " or "))" }
            return nil
        }
    }

    private static func bounds(_ min: Int?, _ max: Int?) -> String {
        switch (min, max) {
        case (let min?, let max?): return " from \(min) to \(max)"
        case (let min?, nil): return " of at least \(min)"
        case (nil, let max?): return " of at most \(max)"
        case (nil, nil): return ""
        }
    }
}
