/// Problems with `--var name=value` arguments; every problem is listed, each naming its var.
public struct VarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One message per problem.
    public var problems: [String]

    /// Creates an error.
    public init(problems: [String]) { self.problems = problems }

    /// The problems, one per line.
    public var description: String { problems.joined(separator: "\n") }
}

extension VarDeclaration {
    /// Converts command-line text to this var's type.
    ///
    /// - Throws: ``VarError`` whose message names the var and what was expected.
    public func coerce(_ text: String) throws(VarError) -> TemplateValue {
        if let problem = Self.problem(coercing: text, to: type, choices: choices) {
            throw VarError(problems: ["var '\(name)': \(problem)"])
        }
        return Self.value(text, type)
    }

    /// Why `text` is not a valid value of `type`, or `nil` if it is.
    static func problem(coercing text: String, to type: VarType, choices: [String]) -> String? {
        switch type {
        case .string, .path, .list: return nil
        case .int: return Int(text) == nil ? "expected an integer, got '\(text)'" : nil
        case .bool: return boolValue(text) == nil ? "expected true or false, got '\(text)'" : nil
        case .duration:
            return DurationText.parse(text) == nil
                ? "expected a duration such as 30s, 5m or 1h, got '\(text)'" : nil
        case .enum:
            guard !choices.contains(text) else { return nil }
            return "expected one of \(choices.joined(separator: ", ")), got '\(text)'"
                + Suggestion.didYouMean(text, in: choices)
        }
    }

    static func value(_ text: String, _ type: VarType) -> TemplateValue {
        switch type {
        case .int: return .int(Int(text)!)
        case .bool: return .bool(boolValue(text)!)
        case .list:
            return .list(
                text.split(separator: ",", omittingEmptySubsequences: true).map {
                    .string(String($0).trimmingSpaces())
                })
        case .path:
            if text.hasPrefix("~/"), let home = ProcessEnvironment.value("HOME") {
                return .string(home + text.dropFirst())
            }
            return .string(text)
        default: return .string(text)
        }
    }

    static func boolValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: return nil
        }
    }
}

extension String {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
