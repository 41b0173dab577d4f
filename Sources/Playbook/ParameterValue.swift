/// A value under a step's `with:`; strings are templates.
public indirect enum ParameterValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case template(Template)
    case list([ParameterValue])
    case object([String: ParameterValue])

    /// Evaluates templates inside, keeping the types of single-expression templates.
    public func evaluate(in context: TemplateContext) throws(TemplateEvaluationError) -> TemplateValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .template(let t): return try t.evaluate(in: context)
        case .list(let items):
            var out: [TemplateValue] = []
            for item in items { out.append(try item.evaluate(in: context)) }
            return .list(out)
        case .object(let fields):
            var out: [String: TemplateValue] = [:]
            for (key, value) in fields { out[key] = try value.evaluate(in: context) }
            return .object(out)
        }
    }
}
