import Foundation
import TextFormats

/// A JSON-like value that templates read and produce: vars, item rows, step outputs, `with` parameters.
public enum TemplateValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case list([TemplateValue])
    case object([String: TemplateValue])

    /// The text a template prints for this value: scalars as themselves, `null` as empty, lists and
    /// objects as compact JSON with sorted keys.
    public var description: String {
        switch self {
        case .null: return ""
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return Self.format(d)
        case .string(let s): return s
        case .list, .object: return json
        }
    }

    /// The value as flat text fields: an object's members (strings as they are, other values as JSON
    /// text), or any other value as the field `value`. How an input item becomes a work item's fields.
    public var textFields: [String: String] {
        switch self {
        case .object(let members):
            return members.mapValues { member in
                if case .string(let text) = member { return text }
                return member.json
            }
        case .string(let text): return ["value": text]
        default: return ["value": json]
        }
    }

    /// Compact JSON text with sorted keys.
    public var json: String {
        switch self {
        case .null: return "null"
        case .bool, .int: return description
        case .double(let d): return d.isFinite ? Self.format(d) : "null"
        case .string(let s): return JSONString.quoted(s)
        case .list(let items): return "[" + items.map(\.json).joined(separator: ",") + "]"
        case .object(let fields):
            return "{"
                + fields.keys.sorted().map { JSONString.quoted($0) + ":" + fields[$0]!.json }.joined(separator: ",")
                + "}"
        }
    }

    /// "a string", "a list", ... for error messages, which never quote a value (it may be a secret).
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a number"
        case .string: return "text"
        case .list: return "a list"
        case .object: return "an object"
        }
    }

    /// Whether a `when` condition holding this value runs the step: `null`, `false`, `0`, `""`,
    /// `"false"`, `"0"` and empty lists and objects are false; everything else is true.
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .double(let d): return d != 0
        case .string(let s): return !(s.isEmpty || s == "false" || s == "0")
        case .list(let items): return !items.isEmpty
        case .object(let fields): return !fields.isEmpty
        }
    }

    /// Parses one JSON text (a JSON Lines record, for example).
    public init(jsonText: some StringProtocol) throws {
        self = try JSONDecoder().decode(TemplateValue.self, from: Data(jsonText.utf8))
    }

    /// A step's output as templates read it (`steps.<id>.outputs.<name>`): text that is a JSON array or
    /// object is that value, so a step can hand a list to a later step's `for_each`; other text is a string.
    public init(output text: String) {
        if let first = text.utf8.first, first == UInt8(ascii: "[") || first == UInt8(ascii: "{"),
            let value = try? TemplateValue(jsonText: text)
        {
            self = value
        } else {
            self = .string(text)
        }
    }

    private static func format(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
        return String(d)
    }
}

extension TemplateValue: Decodable {
    /// Decodes any JSON value; integers that fit stay `.int`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? container.decode(Int.self) {
            self = .int(i)
        } else if let d = try? container.decode(Double.self) {
            self = .double(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([TemplateValue].self) {
            self = .list(a)
        } else {
            self = .object(try container.decode([String: TemplateValue].self))
        }
    }
}
