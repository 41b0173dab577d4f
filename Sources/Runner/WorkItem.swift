/// One unit of work of a step: a stable key and a payload of named fields.
///
/// The key identifies the item across runs (it is the checkpoint's primary key with the step), so it
/// must be derived from the input, not from its position when the input can change. Fields named in
/// `secretFields` are never written to checkpoints, results, events or error messages: the engine
/// replaces their values with `[redacted]` wherever they would appear.
public struct WorkItem: Sendable, Equatable {
    /// The stable key, unique within the step.
    public var key: String
    /// The payload.
    public var fields: [String: String]
    /// Names of fields whose values are secret.
    public var secretFields: Set<String>

    /// Creates an item.
    public init(key: String, fields: [String: String] = [:], secretFields: Set<String> = []) {
        self.key = key
        self.fields = fields
        self.secretFields = secretFields
    }

    /// The replacement written in place of a secret value.
    public static let redactedMarker = "[redacted]"

    /// `text` with every secret field's value replaced by ``redactedMarker``.
    public func redacting(_ text: String) -> String {
        guard !secretFields.isEmpty else { return text }
        var text = text
        for name in secretFields {
            if let value = fields[name], !value.isEmpty, text.contains(value) {
                text = text.replacingOccurrences(of: value, with: Self.redactedMarker)
            }
        }
        return text
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        result += rest
        return result
    }
}
