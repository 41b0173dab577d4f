/// A string with embedded `${{ expression }}` parts, parsed once at load time.
///
/// Syntax (see docs/playbooks.md, "Templates"):
/// - `${{ vars.count }}`, `${{ item.address }}`, `${{ item['first name'] }}`,
///   `${{ steps.create.outputs.wallet_id }}`, `${{ env.HOME }}`, `${{ secrets.api_token }}`;
/// - filters after `|`: `default('x')`, `lower`, `upper`, `trim`, `format('%05d')`, `join(',')`;
/// - operators for conditions: `==`, `!=`, `!`, `&&`, `||`, parentheses; literals `'text'`, `"text"`,
///   `42`, `1.5`, `true`, `false`, `null`;
/// - literal text around and between expressions; `$${{` prints a literal `${{`.
public struct Template: Sendable, Hashable, CustomStringConvertible {
    /// One part of a template.
    public enum Segment: Sendable, Hashable {
        /// Text printed as is.
        case literal(String)
        /// An expression; `offset` is the character offset of its `${{` in the template text.
        case expression(TemplateExpression, offset: Int)
    }

    /// The template text as written.
    public let source: String
    /// Literal text and expressions, in order.
    public let segments: [Segment]

    /// The template text as written.
    public var description: String { source }

    /// Parses a template.
    ///
    /// - Throws: ``TemplateSyntaxError`` with the character offset of the problem.
    public init(parsing source: String) throws(TemplateSyntaxError) {
        self.source = source
        self.segments = try TemplateParser.segments(of: source)
    }

    /// A template that prints `text` verbatim.
    public init(literal text: String) {
        source = text
        segments = text.isEmpty ? [] : [.literal(text)]
    }

    /// Whether the template has no `${{ }}` part.
    public var isLiteral: Bool {
        segments.allSatisfy { if case .literal = $0 { return true } else { return false } }
    }

    /// The expression if the template is exactly one `${{ }}` with no text around it.
    public var singleExpression: TemplateExpression? {
        if segments.count == 1, case .expression(let e, _) = segments[0] { return e }
        return nil
    }

    /// Every value path the template reads, with the character offset of each path in ``source``.
    public var references: [TemplateReference] {
        segments.flatMap { segment -> [TemplateReference] in
            if case .expression(let e, _) = segment { return e.references }
            return []
        }
    }

    /// The filters the template applies, with their offsets.
    public var filters: [(filter: TemplateFilter, offset: Int)] {
        segments.flatMap { segment -> [(filter: TemplateFilter, offset: Int)] in
            if case .expression(let e, _) = segment { return e.filters }
            return []
        }
    }
}

/// A value path read by a template, such as `vars.count` or `steps.create.outputs.id`.
public struct TemplateReference: Sendable, Hashable {
    /// The path parts: the root (`vars`, `item`, `steps`, `env`, `secrets`) then names.
    public var path: [String]
    /// The character offset of the path in the template text.
    public var offset: Int

    /// The root name.
    public var root: String { path[0] }
}

/// A template that does not parse, with the character offset where the problem is.
public struct TemplateSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The 0-based character offset in the template text.
    public var offset: Int

    /// Creates an error.
    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { message }
}

/// An expression inside `${{ }}`.
public indirect enum TemplateExpression: Sendable, Hashable {
    /// A value path; `offset` is where it starts in the template text.
    case path([String], offset: Int)
    /// A literal value.
    case literal(TemplateValue)
    /// `value | filter`.
    case filter(TemplateExpression, TemplateFilter, offset: Int)
    /// `!value`.
    case not(TemplateExpression)
    /// `a && b`.
    case and(TemplateExpression, TemplateExpression)
    /// `a || b`.
    case or(TemplateExpression, TemplateExpression)
    /// `a == b`.
    case equal(TemplateExpression, TemplateExpression)
    /// `a != b`.
    case notEqual(TemplateExpression, TemplateExpression)

    /// Paths read by this expression.
    public var references: [TemplateReference] {
        switch self {
        case .path(let p, let offset): return [TemplateReference(path: p, offset: offset)]
        case .literal: return []
        case .filter(let e, _, _), .not(let e): return e.references
        case .and(let a, let b), .or(let a, let b), .equal(let a, let b), .notEqual(let a, let b):
            return a.references + b.references
        }
    }

    /// Filters applied in this expression.
    public var filters: [(filter: TemplateFilter, offset: Int)] {
        switch self {
        case .path, .literal: return []
        case .filter(let e, let f, let offset): return e.filters + [(f, offset)]
        case .not(let e): return e.filters
        case .and(let a, let b), .or(let a, let b), .equal(let a, let b), .notEqual(let a, let b):
            return a.filters + b.filters
        }
    }
}

/// A filter after `|` in a template expression.
public enum TemplateFilter: Sendable, Hashable {
    /// `default('x')`: the fallback when the value is missing, null or empty.
    case `default`(TemplateValue)
    /// `lower`: lowercased text.
    case lower
    /// `upper`: uppercased text.
    case upper
    /// `trim`: text without leading and trailing white space.
    case trim
    /// `format('%05d')`: printf-style formatting of one value.
    case format(FormatSpec)
    /// `join(',')`: the items of a list joined by a separator.
    case join(String)

    /// The filter names, for "did you mean".
    public static let names = ["default", "lower", "upper", "trim", "format", "join"]
}
