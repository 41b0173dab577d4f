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
