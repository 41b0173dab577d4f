extension PlaybookDecoder {
    // MARK: - Typed access

    mutating func mapping(_ node: YAMLNode, _ what: String) -> [YAMLNode.Pair]? {
        if let pairs = node.mapping { return pairs }
        sink.error(node.location, "\(what) must be a mapping, found \(node.typeName)")
        return nil
    }

    mutating func sequence(_ node: YAMLNode, _ what: String) -> [YAMLNode]? {
        if let items = node.sequence { return items }
        sink.error(node.location, "'\(what)' must be a list, found \(node.typeName)")
        return nil
    }

    mutating func string(_ node: YAMLNode, _ what: String, nonEmpty: Bool = false) -> String? {
        guard let text = node.scalar, !node.isNull else {
            sink.error(node.location, "'\(what)' must be a string, found \(node.typeName)")
            return nil
        }
        if nonEmpty, text.isEmpty {
            sink.error(node.location, "'\(what)' must not be empty")
            return nil
        }
        return text
    }

    mutating func int(_ node: YAMLNode, _ what: String, minimum: Int? = nil) -> Int? {
        guard node.scalarStyle == .plain, let text = node.scalar, let value = YAMLNode.int(text) else {
            sink.error(node.location, "'\(what)' must be an integer, found \(node.typeName)")
            return nil
        }
        if let minimum, value < minimum {
            sink.error(node.location, "'\(what)' must be at least \(minimum), found \(value)")
            return nil
        }
        return value
    }

    mutating func number(_ node: YAMLNode, _ what: String) -> Double? {
        guard node.scalarStyle == .plain, let text = node.scalar, let value = Double(text), value.isFinite else {
            sink.error(node.location, "'\(what)' must be a number, found \(node.typeName)")
            return nil
        }
        return value
    }

    mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        guard node.scalarStyle == .plain, let text = node.scalar, let value = YAMLNode.bool(text) else {
            sink.error(node.location, "'\(what)' must be true or false, found \(node.typeName)")
            return nil
        }
        return value
    }

    mutating func duration(_ node: YAMLNode, _ what: String) -> Duration? {
        guard let text = node.scalar, node.mapping == nil, !node.isNull else {
            sink.error(node.location, "'\(what)' must be a duration such as 30s, found \(node.typeName)")
            return nil
        }
        guard let value = DurationText.parse(text) else {
            sink.error(
                node.location,
                "bad duration '\(text)' for '\(what)'; write a number and a unit (ms, s, m, h, d), such as 30s or 1h30m"
            )
            return nil
        }
        return value
    }

    mutating func stringList(_ node: YAMLNode, _ what: String) -> [String]? {
        guard let items = sequence(node, what) else { return nil }
        let strings = items.compactMap { string($0, what) }
        return strings.count == items.count ? strings : nil
    }

    mutating func checkKeys(_ pairs: [YAMLNode.Pair], allowed: [String], in what: String) {
        for pair in pairs {
            guard let key = pair.key.scalar, !allowed.contains(key) else { continue }
            sink.error(pair.key.location, "unknown key '\(key)' in \(what)" + Suggestion.didYouMean(key, in: allowed))
        }
    }

    mutating func requireKeys(_ keys: [String], in pairs: [YAMLNode.Pair], at node: YAMLNode, what: String) {
        for key in keys where !pairs.contains(where: { $0.key.scalar == key }) {
            sink.error(node.location, "\(what) is missing required key '\(key)'")
        }
    }

    // MARK: - Templates

    /// The column of character `offset` of a scalar's value, when the scalar is on one line and its
    /// text maps one to one onto the source (no escapes or folding); else the scalar's own position.
    func column(in node: YAMLNode, offset: Int) -> SourceLocation {
        guard case .scalar(let value, let style) = node.kind else { return node.location }
        if style == .literal { return literalLocation(in: node, value: value, offset: offset) }
        guard node.location.line == node.endLocation.line else { return node.location }
        let width = node.endLocation.column - node.location.column
        switch style {
        case .plain where width == value.count: return node.location.advanced(by: offset)
        case .singleQuoted where width == value.count + 2, .doubleQuoted where width == value.count + 2:
            return node.location.advanced(by: offset + 1)
        default: return node.location
        }
    }

    /// In a literal block (`|`), value line k is source line `start + 1 + k` with the block's
    /// indentation in front; the indentation is what the source line has beyond the value line.
    func literalLocation(in node: YAMLNode, value: String, offset: Int) -> SourceLocation {
        let before = value.prefix(offset)
        let k = before.filter { $0 == "\n" }.count
        let columnInLine =
            before.count
            - (before.lastIndex(of: "\n").map { before.distance(from: before.startIndex, to: $0) + 1 } ?? 0)
        let lineNumber = node.location.line + 1 + k
        let valueLines = value.split(separator: "\n", omittingEmptySubsequences: false)
        guard lineNumber - 1 < sourceLines.count, k < valueLines.count else { return node.location }
        let sourceLine = sourceLines[lineNumber - 1]
        let valueLine = valueLines[k]
        guard sourceLine.hasSuffix(valueLine) else { return node.location }
        let indent = sourceLine.count - valueLine.count
        return SourceLocation(line: lineNumber, column: indent + columnInLine + 1)
    }

    /// Parses a scalar as a template and queues its references for checking.
    mutating func template(_ node: YAMLNode, _ scope: Scope, wrapping: Bool = false) -> Template? {
        guard let text = string(node, scope.what) else { return nil }
        let prefix = wrapping ? "${{ " : ""
        do {
            let t = try Template(parsing: prefix + text + (wrapping ? " }}" : ""))
            pending.append(PendingTemplate(template: t, node: node, scope: scope, prefixLength: prefix.count))
            return t
        } catch {
            sink.error(column(in: node, offset: max(0, error.offset - prefix.count)), "template: " + error.message)
            return nil
        }
    }

    mutating func checkPendingTemplates(steps: [Step], ancestors: [String: Set<String>]) {
        let stepIDs = steps.map(\.id)
        for entry in pending {
            for reference in entry.template.references {
                let at = column(in: entry.node, offset: max(0, reference.offset - entry.prefixLength))
                if let problem = problem(with: reference, scope: entry.scope, stepIDs: stepIDs, ancestors: ancestors) {
                    sink.error(at, "template: " + problem)
                }
            }
        }
    }

    func problem(
        with reference: TemplateReference, scope: Scope, stepIDs: [String], ancestors: [String: Set<String>]
    ) -> String? {
        let path = reference.path
        switch path[0] {
        case "vars":
            guard path.count >= 2 else { return "'vars' needs a var name, as in vars.count" }
            guard varNames.contains(path[1]) else {
                return "unknown var '\(path[1])'" + Suggestion.didYouMean(path[1], in: varNames.sorted())
            }
        case "env":
            guard path.count == 2 else { return "use env.NAME to read an environment variable" }
        case "now":
            guard path.count == 1 else { return "'now' has no fields; use now | date('%Y-%m')" }
        case "secrets":
            guard scope.allowsSecrets else {
                return "secrets can only be used in a step's 'with' parameters"
            }
            guard path.count == 2 else { return "use secrets.NAME to read a secret" }
            guard secretNames.contains(path[1]) else {
                return "unknown secret '\(path[1])'" + Suggestion.didYouMean(path[1], in: secretNames.sorted())
            }
        case "item":
            guard scope.allowsItem else {
                if scope.what == "for_each" { return "'item' cannot be used in for_each, which produces the items" }
                return scope.step == nil
                    ? "'item' cannot be used in \(scope.what)" : "'item' is only set in a step with 'for_each'"
            }
            if path.count >= 2, let fields = scope.itemFields, !fields.contains(path[1]) {
                return "input '\(scope.itemInput ?? "")' has no column '\(path[1])'"
                    + Suggestion.didYouMean(path[1], in: fields)
            }
        case "steps":
            guard let current = scope.step else { return "step outputs cannot be used in \(scope.what)" }
            guard path.count == 4, path[2] == "outputs" else {
                return "use steps.<id>.outputs.<name> to read a step's output"
            }
            let id = path[1]
            guard stepIDs.contains(id) else {
                return "unknown step '\(id)'" + Suggestion.didYouMean(id, in: stepIDs)
            }
            if id == current { return "step '\(current)' cannot read its own outputs" }
            guard ancestors[current]?.contains(id) == true else {
                return "step '\(current)' reads outputs of step '\(id)' but does not list it in 'needs'"
            }
        default:
            return "unknown root '\(path[0])'; use one of \(Self.roots.joined(separator: ", "))"
                + Suggestion.didYouMean(path[0], in: Self.roots)
        }
        return nil
    }

    // MARK: - Graph

    /// Reports unknown needs and cycles (with their path); returns each step's transitive dependencies.
    mutating func checkGraph(_ steps: [Step], root: YAMLNode) -> [String: Set<String>] {
        let ids = steps.map(\.id)
        let stepNodes = root["steps"]?.sequence ?? []
        func node(of id: String) -> YAMLNode? { stepNodes.first { $0["id"]?.scalar == id } }
        var edges: [String: [String]] = [:]
        for step in steps {
            let needsNode = node(of: step.id)?["needs"]
            let items = needsNode?.sequence ?? needsNode.map { [$0] } ?? []
            var valid: [String] = []
            for (index, need) in step.needs.enumerated() {
                let at = index < items.count ? items[index].location : step.location
                if need == step.id {
                    sink.error(at, "step '\(step.id)' needs itself")
                } else if !ids.contains(need) {
                    sink.error(
                        at, "step '\(step.id)' needs unknown step '\(need)'" + Suggestion.didYouMean(need, in: ids))
                } else {
                    valid.append(need)
                }
            }
            edges[step.id] = valid
        }
        // Depth-first search; a grey node reached again closes a cycle.
        enum Mark { case grey, black }
        var marks: [String: Mark] = [:]
        var stack: [String] = []
        var cycles: [[String]] = []
        func visit(_ id: String) {
            marks[id] = .grey
            stack.append(id)
            for next in edges[id] ?? [] {
                switch marks[next] {
                case .grey:
                    let start = stack.firstIndex(of: next)!
                    cycles.append(Array(stack[start...]) + [next])
                case .black: continue
                case nil: visit(next)
                }
            }
            stack.removeLast()
            marks[id] = .black
        }
        for id in ids where marks[id] == nil { visit(id) }
        for cycle in cycles {
            // Printed along `needs`: in `a -> b -> a`, a needs b and b needs a.
            let path = cycle
            sink.error(
                node(of: path.first!)?["needs"]?.location ?? node(of: path.first!)?.location ?? root.location,
                "dependency cycle: " + path.joined(separator: " -> "))
        }
        var ancestors: [String: Set<String>] = [:]
        func collect(_ id: String, _ seen: inout Set<String>) {
            for next in edges[id] ?? [] where seen.insert(next).inserted { collect(next, &seen) }
        }
        for id in ids {
            var seen = Set<String>()
            collect(id, &seen)
            ancestors[id] = seen
        }
        return ancestors
    }
}
