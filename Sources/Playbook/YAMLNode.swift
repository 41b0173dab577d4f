/// A YAML node with the position it was read from: a scalar, a sequence or a mapping.
///
/// Aliases are expanded into copies of their anchored node (bounded, see ``YAMLLoader``), so a tree is
/// always finite and acyclic. Mapping keys keep their order.
public struct YAMLNode: Sendable, Equatable {
    /// How a scalar was written; quoting matters for type resolution (`"10"` is a string, `10` an int).
    public enum ScalarStyle: String, Sendable, Equatable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// One key/value pair of a mapping.
    public struct Pair: Sendable, Equatable {
        /// The key node (always a scalar in a valid document).
        public var key: YAMLNode
        /// The value node.
        public var value: YAMLNode
    }

    /// The shape of a node.
    public enum Kind: Sendable, Equatable {
        case scalar(String, ScalarStyle)
        case sequence([YAMLNode])
        case mapping([Pair])
    }

    /// The node's content.
    public var kind: Kind
    /// An explicit tag (`!!str`, `!custom`), if written.
    public var tag: String?
    /// Where the node starts (for a quoted scalar: the opening quote).
    public var location: SourceLocation
    /// Where the node ends (exclusive), used to tell single-line scalars.
    public var endLocation: SourceLocation

    /// Creates a node.
    public init(kind: Kind, tag: String? = nil, location: SourceLocation, endLocation: SourceLocation? = nil) {
        self.kind = kind
        self.tag = tag
        self.location = location
        self.endLocation = endLocation ?? location
    }

    /// The text of a scalar node, or `nil`.
    public var scalar: String? {
        if case .scalar(let value, _) = kind { return value }
        return nil
    }

    /// The style of a scalar node, or `nil`.
    public var scalarStyle: ScalarStyle? {
        if case .scalar(_, let style) = kind { return style }
        return nil
    }

    /// The items of a sequence node, or `nil`.
    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    /// The pairs of a mapping node, or `nil`.
    public var mapping: [Pair]? {
        if case .mapping(let pairs) = kind { return pairs }
        return nil
    }

    /// The value under a scalar key of a mapping node.
    public subscript(key: String) -> YAMLNode? {
        mapping?.first { $0.key.scalar == key }?.value
    }

    /// Whether this is a null scalar (`~`, `null`, or empty, unquoted and untagged).
    public var isNull: Bool {
        guard case .scalar(let value, .plain) = kind, tag == nil || tag == "tag:yaml.org,2002:null" else {
            return false
        }
        return value.isEmpty || value == "~" || value == "null" || value == "Null" || value == "NULL"
    }

    /// A short name of the node's type for error messages ("a string", "a mapping", ...).
    var typeName: String {
        switch kind {
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .scalar(let value, let style):
            if isNull { return "null" }
            if style != .plain { return "a string" }
            if Self.bool(value) != nil { return "a boolean" }
            if Self.int(value) != nil { return "an integer" }
            if Double(value) != nil { return "a number" }
            return "a string"
        }
    }

    /// The number of nodes in this tree (used to bound alias expansion).
    var nodeCount: Int {
        switch kind {
        case .scalar: return 1
        case .sequence(let items): return 1 + items.reduce(0) { $0 + $1.nodeCount }
        case .mapping(let pairs): return 1 + pairs.reduce(0) { $0 + $1.key.nodeCount + $1.value.nodeCount }
        }
    }

    /// YAML 1.2 core-schema booleans.
    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// YAML 1.2 core-schema integers (decimal with optional sign, `0x` hex, `0o` octal).
    static func int(_ text: String) -> Int? {
        if text.hasPrefix("0x") { return Int(text.dropFirst(2), radix: 16) }
        if text.hasPrefix("0o") { return Int(text.dropFirst(2), radix: 8) }
        guard let first = text.first, first.isNumber || ((first == "-" || first == "+") && text.count > 1) else {
            return nil
        }
        return Int(text)
    }
}
