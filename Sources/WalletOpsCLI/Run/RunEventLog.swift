import Foundation
import OMSProtocol
import Playbook
import Synchronization
import TextFormats

/// Where run events go: JSON lines on standard output (`--log-format json`), or nowhere in text mode
/// (the live display and the report tell the story). Every string passes through the redactor.
final class RunEventLog: Sendable {
    let output: any OutputSink
    let isJSON: Bool
    let redactor: Redactor
    private let lock = Mutex(())

    init(output: any OutputSink, isJSON: Bool, redactor: Redactor) {
        self.output = output
        self.isJSON = isJSON
        self.redactor = redactor
    }

    /// Emits `{"event": kind, "time": ..., fields...}` as one line.
    func emit(_ kind: String, _ fields: [String: JSONField] = [:]) {
        guard isJSON else { return }
        var line = "{\"event\":" + JSONField.string(kind).text(redactor)
        line += ",\"time\":" + JSONField.string(RFC3339.format(Date())).text(redactor)
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            line += "," + JSONField.string(name).text(redactor) + ":" + value.text(redactor)
        }
        line += "}\n"
        lock.withLock { _ in output.write(line) }
    }
}

/// A JSON value for events and reports.
enum JSONField: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSONField])
    case object([(String, JSONField)])

    /// The JSON text, strings redacted.
    func text(_ redactor: Redactor) -> String {
        switch self {
        case .string(let value): return JSONString.quoted(redactor.redact(value))
        case .int(let value): return String(value)
        case .double(let value): return value.isFinite ? String(format: "%.3f", value) : "null"
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array(let values): return "[" + values.map { $0.text(redactor) }.joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { JSONString.quoted($0.0) + ":" + $0.1.text(redactor) }.joined(separator: ",")
                + "}"
        }
    }

    /// Pretty-printed with two-space indents (for report files).
    func pretty(_ redactor: Redactor, indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .array(let values) where !values.isEmpty:
            return "[\n" + values.map { inner + $0.pretty(redactor, indent: inner) }.joined(separator: ",\n") + "\n"
                + indent + "]"
        case .object(let members) where !members.isEmpty:
            return "{\n"
                + members.map { inner + JSONString.quoted($0.0) + ": " + $0.1.pretty(redactor, indent: inner) }.joined(
                    separator: ",\n") + "\n" + indent + "}"
        default: return text(redactor)
        }
    }
}
