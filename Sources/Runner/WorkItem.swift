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
    public var fields: [String: String] {
        get {
            switch storage {
            case .dictionary(let fields): return fields
            case .single(let name, let value): return [name: value]
            }
        }
        set { storage = .dictionary(newValue) }
    }
    /// Names of fields whose values are secret.
    public var secretFields: Set<String>
    /// What the item source hands the action beside the fields, in memory only: never checkpointed,
    /// compared, logged or written (a validated key in wiped memory, for example). It lives as long as
    /// the item is in the feed or in a chunk in flight.
    public var attachment: (any Sendable)?

    /// The payload as stored: an item of one field (a row of a one-column CSV) keeps it inline, so
    /// making, moving and dropping the item allocates and reference-counts nothing for it.
    private enum Storage: Sendable {
        case dictionary([String: String])
        case single(name: String, value: String)
    }
    private var storage: Storage

    /// Creates an item.
    public init(key: String, fields: [String: String] = [:], secretFields: Set<String> = []) {
        self.key = key
        self.storage = .dictionary(fields)
        self.secretFields = secretFields
    }

    /// An item of one field (``fields`` builds its dictionary when read).
    init(key: String, field name: String, value: String, secretFields: Set<String> = []) {
        self.key = key
        self.storage = .single(name: name, value: value)
        self.secretFields = secretFields
    }

    /// The value of the field `name`, without building ``fields``.
    func field(_ name: String) -> String? {
        switch storage {
        case .dictionary(let fields): return fields[name]
        case .single(let single, let value): return single == name ? value : nil
        }
    }

    /// Whether two items have the same key, fields and secret field names (attachments are not compared).
    public static func == (lhs: WorkItem, rhs: WorkItem) -> Bool {
        lhs.key == rhs.key && lhs.secretFields == rhs.secretFields && lhs.fields == rhs.fields
    }

    /// The replacement written in place of a secret value.
    public static let redactedMarker = "[redacted]"

    /// `text` with every secret field's value replaced by ``redactedMarker``.
    public func redacting(_ text: String) -> String {
        guard !secretFields.isEmpty else { return text }
        var text = text
        for name in secretFields {
            if let value = field(name), !value.isEmpty, text.contains(value) {
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
