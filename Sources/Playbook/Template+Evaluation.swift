extension Template {
    /// Renders the template as text: literal parts verbatim, expression values by
    /// ``TemplateValue/description``.
    ///
    /// - Throws: ``TemplateEvaluationError`` for a missing value without `default`, or a bad filter input.
    public func render(in context: TemplateContext) throws(TemplateEvaluationError) -> String {
        var out = ""
        for segment in segments {
            switch segment {
            case .literal(let text): out += text
            case .expression(let e, _): out += try e.evaluate(in: context).description
            }
        }
        return out
    }

    /// Evaluates the template keeping the value's type when it is a single `${{ }}` with no text around
    /// it (so `${{ vars.tags }}` stays a list); otherwise renders it as a string.
    public func evaluate(in context: TemplateContext) throws(TemplateEvaluationError) -> TemplateValue {
        if let e = singleExpression { return try e.evaluate(in: context) }
        return .string(try render(in: context))
    }
}

/// Raised inside evaluation for a path with no value; `default` catches it.
private struct Missing: Error {
    let message: String
}

extension TemplateExpression {
    /// Evaluates the expression.
    public func evaluate(in context: TemplateContext) throws(TemplateEvaluationError) -> TemplateValue {
        do {
            return try value(in: context)
        } catch let missing as Missing {
            throw TemplateEvaluationError(missing.message)
        } catch let error as TemplateEvaluationError {
            throw error
        } catch {
            throw TemplateEvaluationError("\(error)")
        }
    }

    private func value(in context: TemplateContext) throws -> TemplateValue {
        switch self {
        case .literal(let v): return v
        case .path(let path, _): return try Self.lookup(path, in: context)
        case .not(let e): return .bool(!(try e.value(in: context).isTruthy))
        case .and(let a, let b):
            return .bool(try a.value(in: context).isTruthy && b.value(in: context).isTruthy)
        case .or(let a, let b):
            return .bool(try a.value(in: context).isTruthy || b.value(in: context).isTruthy)
        case .equal(let a, let b): return .bool(Self.same(try a.value(in: context), try b.value(in: context)))
        case .notEqual(let a, let b): return .bool(!Self.same(try a.value(in: context), try b.value(in: context)))
        case .filter(let e, let filter, _):
            if case .default(let fallback) = filter {
                do {
                    let v = try e.value(in: context)
                    if v == .null || v == .string("") { return fallback }
                    return v
                } catch is Missing {
                    return fallback
                }
            }
            return try Self.apply(filter, to: try e.value(in: context))
        }
    }

    /// Numbers compare as numbers (also against numeric text such as a CSV field); the rest as text.
    private static func same(_ a: TemplateValue, _ b: TemplateValue) -> Bool {
        func number(_ v: TemplateValue) -> Double? {
            switch v {
            case .int(let i): return Double(i)
            case .double(let d): return d
            case .string(let s): return Double(s)
            default: return nil
            }
        }
        switch (a, b) {
        case (.int, _), (.double, _), (_, .int), (_, .double):
            if let x = number(a), let y = number(b) { return x == y }
            return a.description == b.description && (a == .null) == (b == .null)
        case (.list, _), (.object, _), (_, .list), (_, .object): return a == b
        default: return a.description == b.description && (a == .null) == (b == .null)
        }
    }

    private static func apply(_ filter: TemplateFilter, to v: TemplateValue) throws -> TemplateValue {
        switch filter {
        case .default: return v
        case .lower: return .string(v.description.lowercased())
        case .upper: return .string(v.description.uppercased())
        case .trim:
            let s = v.description
            return .string(String(s.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()))
        case .format(let spec): return .string(try spec.apply(to: v))
        case .join(let separator):
            guard case .list(let items) = v else {
                throw TemplateEvaluationError("filter 'join' needs a list, got \(v.kindName)")
            }
            return .string(items.map(\.description).joined(separator: separator))
        case .date(let format):
            guard let seconds = DateFormat.seconds(of: v) else {
                throw TemplateEvaluationError(
                    "filter 'date' needs a time (Unix seconds, as now, or RFC 3339 text), got \(v.kindName) '\(v)'")
            }
            return .string(format.format(seconds))
        }
    }

    private static func lookup(_ path: [String], in context: TemplateContext) throws -> TemplateValue {
        let name = path.joined(separator: ".")
        var current: TemplateValue
        var rest = path.dropFirst()
        switch path[0] {
        case "vars":
            guard let key = rest.popFirst() else { return .object(context.vars) }
            guard let v = context.vars[key] else { throw Missing(message: "vars.\(key) is not set") }
            current = v
        case "item":
            guard let item = context.item else { throw Missing(message: "'item' is only set inside a for_each step") }
            current = item
        case "env":
            guard let key = rest.popFirst() else { throw TemplateEvaluationError("'env' needs a variable name") }
            guard let v = context.env[key] else { throw Missing(message: "environment variable \(key) is not set") }
            current = .string(v)
        case "secrets":
            guard context.allowsSecrets else {
                throw TemplateEvaluationError("secrets can only be used in a step's 'with' parameters")
            }
            guard let key = rest.popFirst() else { throw TemplateEvaluationError("'secrets' needs a secret name") }
            guard let v = context.secrets[key] else { throw Missing(message: "secret '\(key)' is not loaded") }
            current = .string(v.reveal)
        case "now":
            guard rest.isEmpty else { throw TemplateEvaluationError("'now' has no fields; use now | date('%Y-%m')") }
            current = .int(Int(context.now))
        case "steps":
            guard let id = rest.popFirst(), rest.popFirst() == "outputs", let output = rest.popFirst() else {
                throw TemplateEvaluationError("use steps.<id>.outputs.<name>, not '\(name)'")
            }
            guard let outputs = context.steps[id] else { throw Missing(message: "step '\(id)' has no outputs yet") }
            guard let v = outputs[output] else { throw Missing(message: "step '\(id)' has no output '\(output)'") }
            current = v
        default:
            throw TemplateEvaluationError("unknown root '\(path[0])'")
        }
        for key in rest {
            switch current {
            case .object(let fields):
                guard let v = fields[key] else { throw Missing(message: "\(name): no field '\(key)'") }
                current = v
            case .list(let items):
                guard let index = Int(key), items.indices.contains(index) else {
                    throw Missing(message: "\(name): no item at index '\(key)'")
                }
                current = items[index]
            default:
                throw Missing(message: "\(name): '\(key)' is not a field of a \(current == .null ? "null" : "scalar")")
            }
        }
        return current
    }
}
