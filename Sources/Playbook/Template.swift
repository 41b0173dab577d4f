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
