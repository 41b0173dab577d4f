internal import CYAML

/// Reads one YAML document into a ``YAMLNode`` tree through libyaml's event API.
///
/// It keeps the 1-based line and column of every node, refuses duplicate mapping keys and non-scalar
/// keys, allows anchors and aliases but counts the nodes they expand to and refuses more than
/// ``maxExpandedNodes`` (the "billion laughs" defence), refuses a second document in the stream, and
/// bounds what nests and what is large: more than ``maxDepth`` open sequences and mappings, a scalar of
/// more than ``maxScalarBytes``, or a text of more than ``maxBytes`` stop it with an error at the place.
/// The depth is counted on libyaml's events, so no recursion anywhere sees a deep document: neither this
/// builder, nor the decoder after it, nor the release of the tree (issue 28: 30,000 nested lists
/// overflowed the decoder's stack). See <https://yaml.org/spec/1.2.2/> and <https://pyyaml.org/wiki/LibYAML>.
public struct YAMLLoader: Sendable {
    /// The most nodes a document may hold once aliases are expanded.
    public var maxExpandedNodes: Int
    /// The most sequences and mappings open at once; a playbook needs about six.
    public var maxDepth: Int
    /// The longest scalar, in bytes (a template or a description, never data).
    public var maxScalarBytes: Int
    /// The longest document, in bytes.
    public var maxBytes: Int

    /// The default ``maxDepth``.
    public static let defaultMaxDepth = 64
    /// The default ``maxScalarBytes``: 64 KiB.
    public static let defaultMaxScalarBytes = 64 << 10
    /// The default ``maxBytes``: 1 MiB, room for any playbook a person writes while a hostile file
    /// cannot hold the loader's memory.
    public static let defaultMaxBytes = 1 << 20

    /// Creates a loader.
    public init(
        maxExpandedNodes: Int = 100_000, maxDepth: Int = defaultMaxDepth, maxScalarBytes: Int = defaultMaxScalarBytes,
        maxBytes: Int = defaultMaxBytes
    ) {
        self.maxExpandedNodes = maxExpandedNodes
        self.maxDepth = maxDepth
        self.maxScalarBytes = maxScalarBytes
        self.maxBytes = maxBytes
    }

    /// The result of loading: the tree if the YAML was well formed, and every problem found.
    public struct Result: Sendable {
        /// The document's root node; `nil` after a syntax error or for an empty document.
        public var root: YAMLNode?
        /// Syntax errors, duplicate keys, alias-expansion refusals.
        public var diagnostics: [Diagnostic]
    }

    /// Parses `text` (the contents of `file`) and never throws: problems come back as diagnostics.
    public func load(_ text: String, file: String) -> Result {
        var bytes = Array(text.utf8)
        if bytes.count > maxBytes {
            var sink = DiagnosticSink(file: file)
            sink.error(
                SourceLocation(line: 1, column: 1),
                "the document is \(bytes.count) bytes, more than the \(maxBytes) a playbook may have")
            return Result(root: nil, diagnostics: sink.sorted)
        }
        if bytes.isEmpty { bytes = [0x0a] }
        return bytes.withUnsafeBufferPointer { buffer in
            var builder = Builder(file: file, limit: maxExpandedNodes, maxDepth: maxDepth, maxScalar: maxScalarBytes)
            builder.run(buffer)
            return Result(root: builder.root, diagnostics: builder.sink.sorted)
        }
    }
}

/// Turns the event stream into a tree; one instance per document.
private struct Builder {
    enum Frame {
        case sequence(start: SourceLocation, tag: String?, anchor: String?, items: [YAMLNode])
        case mapping(start: SourceLocation, tag: String?, anchor: String?, pairs: [YAMLNode.Pair], key: YAMLNode?)
    }

    var sink: DiagnosticSink
    let limit: Int
    let maxDepth: Int
    let maxScalar: Int
    var root: YAMLNode?
    var stack: [Frame] = []
    var anchors: [String: YAMLNode] = [:]
    var expanded = 0
    var documents = 0
    var refusedExpansion = false

    init(file: String, limit: Int, maxDepth: Int, maxScalar: Int) {
        sink = DiagnosticSink(file: file)
        self.limit = limit
        self.maxDepth = maxDepth
        self.maxScalar = maxScalar
    }

    mutating func run(_ buffer: UnsafeBufferPointer<UInt8>) {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            sink.error(SourceLocation(line: 1, column: 1), "YAML parser could not be initialised")
            return
        }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else {
                reportSyntaxError(parser)
                root = nil
                return
            }
            let done = event.type == YAML_STREAM_END_EVENT
            let keepGoing = handle(event)
            yaml_event_delete(&event)
            if done || !keepGoing { return }
        }
    }

    private mutating func reportSyntaxError(_ parser: yaml_parser_t) {
        let problem = parser.problem.map { String(cString: $0) } ?? "malformed YAML"
        let mark = parser.problem_mark
        var message = "YAML syntax: " + problem
        if let context = parser.context.map({ String(cString: $0) }) {
            let at = parser.context_mark
            message += " (\(context) at line \(at.line + 1), column \(at.column + 1))"
        }
        sink.error(SourceLocation(line: Int(mark.line) + 1, column: Int(mark.column) + 1), message)
    }

    private static func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
    }

    /// Returns false to stop reading.
    private mutating func handle(_ event: yaml_event_t) -> Bool {
        let start = Self.location(event.start_mark)
        let end = Self.location(event.end_mark)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                sink.error(start, "a playbook file holds one YAML document; found a second one")
                return false
            }
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            if data.length > maxScalar {
                sink.error(
                    start, "a scalar of \(data.length) bytes, more than the \(maxScalar) a playbook value may have")
                root = nil
                return false
            }
            let value = String(
                decoding: UnsafeBufferPointer(start: data.value, count: data.length), as: UTF8.self)
            let style: YAMLNode.ScalarStyle
            switch data.style {
            case YAML_SINGLE_QUOTED_SCALAR_STYLE: style = .singleQuoted
            case YAML_DOUBLE_QUOTED_SCALAR_STYLE: style = .doubleQuoted
            case YAML_LITERAL_SCALAR_STYLE: style = .literal
            case YAML_FOLDED_SCALAR_STYLE: style = .folded
            default: style = .plain
            }
            let node = YAMLNode(
                kind: .scalar(value, style), tag: Self.string(data.tag), location: start, endLocation: end)
            add(node, anchor: Self.string(data.anchor))
        case YAML_SEQUENCE_START_EVENT where stack.count >= maxDepth,
            YAML_MAPPING_START_EVENT where stack.count >= maxDepth:
            sink.error(start, "nested more than \(maxDepth) levels deep (lists and mappings)")
            root = nil
            stack.removeAll()
            return false
        case YAML_SEQUENCE_START_EVENT:
            let data = event.data.sequence_start
            stack.append(
                .sequence(start: start, tag: Self.string(data.tag), anchor: Self.string(data.anchor), items: []))
        case YAML_MAPPING_START_EVENT:
            let data = event.data.mapping_start
            stack.append(
                .mapping(
                    start: start, tag: Self.string(data.tag), anchor: Self.string(data.anchor), pairs: [],
                    key: nil))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { return false }
            switch frame {
            case .sequence(let s, let tag, let anchor, let items):
                add(YAMLNode(kind: .sequence(items), tag: tag, location: s, endLocation: end), anchor: anchor)
            case .mapping(let s, let tag, let anchor, let pairs, _):
                add(YAMLNode(kind: .mapping(pairs), tag: tag, location: s, endLocation: end), anchor: anchor)
            }
        case YAML_ALIAS_EVENT:
            let name = Self.string(event.data.alias.anchor) ?? ""
            guard var target = anchors[name] else {
                // libyaml's parser does not check that anchors exist.
                sink.error(start, "unknown alias '*\(name)'")
                return false
            }
            expanded += target.nodeCount - 1
            if expanded > limit {
                if !refusedExpansion {
                    sink.error(
                        start, "alias '*\(name)' expands the document beyond \(limit) nodes (alias bomb?)")
                    refusedExpansion = true
                }
                return false
            }
            target.location = start
            target.endLocation = end
            add(target, anchor: nil)
        default:
            break
        }
        return true
    }

    private mutating func add(_ node: YAMLNode, anchor: String?) {
        expanded += 1
        if let anchor { anchors[anchor] = node }
        guard let top = stack.popLast() else {
            root = node
            return
        }
        switch top {
        case .sequence(let s, let tag, let a, var items):
            items.append(node)
            stack.append(.sequence(start: s, tag: tag, anchor: a, items: items))
        case .mapping(let s, let tag, let a, var pairs, let key):
            if let key {
                pairs.append(YAMLNode.Pair(key: key, value: node))
                stack.append(.mapping(start: s, tag: tag, anchor: a, pairs: pairs, key: nil))
            } else {
                if let name = node.scalar {
                    if let first = pairs.first(where: { $0.key.scalar == name }) {
                        sink.error(
                            node.location, "duplicate key '\(name)' (first defined at line \(first.key.location.line))")
                    }
                } else {
                    sink.error(node.location, "mapping keys must be scalars, found \(node.typeName)")
                }
                stack.append(.mapping(start: s, tag: tag, anchor: a, pairs: pairs, key: node))
            }
        }
    }
}
