/// Turns a YAML node tree into a ``Playbook``, collecting every problem instead of stopping at the first.
struct PlaybookDecoder {
    var sink: DiagnosticSink
    let options: Playbook.ValidationOptions

    /// The source split into lines, to place errors inside literal block scalars.
    let sourceLines: [Substring]

    init(file: String, options: Playbook.ValidationOptions, source: String = "") {
        sink = DiagnosticSink(file: file)
        self.options = options
        sourceLines = source.split(separator: "\n", omittingEmptySubsequences: false)
    }

    static let topKeys = [
        "version", "name", "description", "vars", "secrets", "inputs", "steps", "concurrency", "defaults",
        "schedule", "lock",
    ]
    static let settingKeys = ["concurrency", "rate_limit", "retry", "timeout", "max_failures"]
    static let stepKeys = ["id", "description", "action", "with", "needs", "for_each", "when", "batch"] + settingKeys
    /// Step settings that may be written as a template of vars.
    static let templatedSettingKeys = ["concurrency", "batch"]
    static let roots = ["vars", "item", "steps", "env", "secrets", "now"]

    /// Where a template is used, which decides what it may read.
    struct Scope {
        var what: String
        var step: String?
        var allowsItem = false
        var itemFields: [String]?
        var itemInput: String?
        var allowsSecrets = false
    }

    /// A template kept until the step graph is known, to check `steps.*` references.
    struct PendingTemplate {
        var template: Template
        var node: YAMLNode
        var scope: Scope
        var prefixLength: Int
    }

    var pending: [PendingTemplate] = []
    var varNames: Set<String> = []
    var secretNames: Set<String> = []
    var inputs: [String: InputDeclaration] = [:]
    /// Input names declared, valid or not, so a broken input is not reported again at `for_each`.
    var declaredInputs: Set<String> = []

    // MARK: - Top level

    mutating func decode(_ root: YAMLNode, hash: PlaybookHash) -> Playbook? {
        guard let pairs = mapping(root, "the playbook") else { return nil }
        checkKeys(pairs, allowed: Self.topKeys, in: "the playbook")
        requireKeys(["name", "steps"], in: pairs, at: root, what: "the playbook")

        if let node = root["version"], let v = int(node, "version"), v != 1 {
            sink.error(node.location, "unsupported playbook version \(v); this walletops reads version 1")
        }
        let name = root["name"].flatMap { string($0, "name", nonEmpty: true) } ?? ""
        let description = root["description"].flatMap { string($0, "description") }
        let vars = root["vars"].map { decodeVars($0) } ?? [:]
        let secrets = root["secrets"].map { decodeSecrets($0) } ?? [:]
        for name in Set(vars.keys).intersection(secrets.keys).sorted() {
            sink.error(secrets[name]!.location, "'\(name)' is declared both as a var and as a secret")
        }
        inputs = root["inputs"].map { decodeInputs($0) } ?? [:]
        let concurrency = root["concurrency"].flatMap { int($0, "concurrency", minimum: 1) }
        let defaults =
            root["defaults"].flatMap { $0.isNull ? nil : decodeSettings($0, what: "defaults", allowExtra: false) }
            ?? StepSettings()
        var schedule: CronExpression?
        if let node = root["schedule"], let text = string(node, "schedule") {
            do {
                schedule = try CronExpression(parsing: text)
            } catch {
                sink.error(column(in: node, offset: error.offset), error.message)
            }
        }
        let lock = root["lock"].map { decodeLock($0) } ?? LockPolicy()
        var steps: [Step] = []
        if let node = root["steps"], let items = sequence(node, "steps") {
            if items.isEmpty { sink.error(node.location, "'steps' must list at least one step") }
            var seen: [String: SourceLocation] = [:]
            for item in items {
                guard let step = decodeStep(item) else { continue }
                if let first = seen[step.id] {
                    sink.error(
                        item["id"]?.location ?? item.location,
                        "duplicate step id '\(step.id)' (first defined at line \(first.line))")
                    continue
                }
                seen[step.id] = item["id"]?.location ?? item.location
                steps.append(step)
            }
        }
        let ancestors = checkGraph(steps, root: root)
        checkPendingTemplates(steps: steps, ancestors: ancestors)
        if let knownActions = options.knownActions {
            for (step, item) in zip(steps, root["steps"]?.sequence ?? []) where !knownActions.contains(step.action) {
                sink.error(
                    item["action"]?.location ?? item.location,
                    "unknown action '\(step.action)'" + Suggestion.didYouMean(step.action, in: knownActions.sorted()))
            }
        }
        guard !sink.hasErrors else { return nil }
        return Playbook(
            name: name, description: description, vars: vars, secrets: secrets, inputs: inputs, steps: steps,
            concurrency: concurrency ?? Playbook.defaultConcurrency, defaults: defaults, schedule: schedule,
            lock: lock, hash: hash, file: sink.file)
    }

    // MARK: - Declarations

    static func isIdentifier(_ s: String, dash: Bool = false) -> Bool {
        guard let first = s.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
        return s.allSatisfy { $0 == "_" || (dash && $0 == "-") || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }

    mutating func checkName(_ key: YAMLNode, _ kind: String) -> String? {
        guard let name = key.scalar else { return nil }
        guard Self.isIdentifier(name) else {
            sink.error(key.location, "\(kind) name '\(name)' must be letters, digits and '_', starting with a letter")
            return nil
        }
        return name
    }

    mutating func decodeVars(_ node: YAMLNode) -> [String: VarDeclaration] {
        if node.isNull { return [:] }  // `vars:` with nothing under it
        guard let pairs = mapping(node, "vars") else { return [:] }
        var out: [String: VarDeclaration] = [:]
        for pair in pairs {
            guard let name = checkName(pair.key, "var") else { continue }
            varNames.insert(name)
            let what = "var '\(name)'"
            guard let fields = mapping(pair.value, what) else { continue }
            checkKeys(fields, allowed: ["type", "default", "required", "choices", "description", "identity"], in: what)
            var type = VarType.string
            let choices = pair.value["choices"].flatMap { stringList($0, "choices") } ?? []
            if let t = pair.value["type"] {
                if let text = string(t, "type") {
                    if let parsed = VarType(rawValue: text) {
                        type = parsed
                    } else {
                        sink.error(
                            t.location,
                            "unknown var type '\(text)'; use one of \(VarType.allCases.map(\.rawValue).joined(separator: ", "))"
                                + Suggestion.didYouMean(text, in: VarType.allCases.map(\.rawValue)))
                    }
                }
            } else if pair.value["choices"] != nil {
                type = .enum
            }
            if type == .enum, choices.isEmpty {
                sink.error(pair.value.location, "\(what) of type enum needs a non-empty 'choices' list")
            } else if type != .enum, pair.value["choices"] != nil {
                sink.error(pair.value["choices"]!.location, "'choices' only applies to vars of type enum")
            }
            let required = pair.value["required"].flatMap { bool($0, "required") } ?? false
            var defaultValue: TemplateValue?
            if let d = pair.value["default"] {
                if required {
                    sink.error(d.location, "\(what) is required and has a default; remove one of them")
                }
                defaultValue = decodeDefault(d, type: type, choices: choices, what: what)
            }
            out[name] = VarDeclaration(
                name: name, type: type, choices: choices, defaultValue: defaultValue, required: required,
                description: pair.value["description"].flatMap { string($0, "description") },
                changesWork: pair.value["identity"].flatMap { bool($0, "identity") } ?? true,
                location: pair.key.location)
        }
        return out
    }

    mutating func decodeDefault(_ node: YAMLNode, type: VarType, choices: [String], what: String) -> TemplateValue? {
        if type == .list {
            if let items = node.sequence {
                return .list(items.compactMap { string($0, "default").map(TemplateValue.string) })
            }
            sink.error(node.location, "default of \(what) must be a list, found \(node.typeName)")
            return nil
        }
        guard let text = node.scalar, node.mapping == nil, !node.isNull else {
            sink.error(node.location, "default of \(what) must be a scalar, found \(node.typeName)")
            return nil
        }
        if type == .int, node.scalarStyle != .plain {
            sink.error(node.location, "default of \(what) must be an integer, found a string")
            return nil
        }
        if let problem = VarDeclaration.problem(coercing: text, to: type, choices: choices) {
            sink.error(node.location, "default of \(what): \(problem)")
            return nil
        }
        return VarDeclaration.value(text, type)
    }

    mutating func decodeSecrets(_ node: YAMLNode) -> [String: SecretDeclaration] {
        if node.isNull { return [:] }  // `secrets:` with nothing under it
        guard let pairs = mapping(node, "secrets") else { return [:] }
        var out: [String: SecretDeclaration] = [:]
        for pair in pairs {
            guard let name = checkName(pair.key, "secret") else { continue }
            secretNames.insert(name)
            let what = "secret '\(name)'"
            guard let fields = mapping(pair.value, what) else { continue }
            var ok = true
            for field in fields {
                guard let key = field.key.scalar else { continue }
                if ["value", "default", "arg", "args", "cli", "flag", "option", "var"].contains(key) {
                    sink.error(
                        field.key.location,
                        "\(what) cannot take its value from '\(key)'; secrets are read only from 'env' or 'file', never from the command line or the playbook"
                    )
                    ok = false
                } else if !["env", "file", "required", "description"].contains(key) {
                    sink.error(
                        field.key.location,
                        "unknown key '\(key)' in \(what)"
                            + Suggestion.didYouMean(key, in: ["env", "file", "required", "description"]))
                    ok = false
                }
            }
            let env = pair.value["env"]
            let file = pair.value["file"]
            var source: SecretSource?
            switch (env, file) {
            case (nil, nil):
                if ok { sink.error(pair.value.location, "\(what) needs 'env' or 'file'") }
            case (.some, .some):
                sink.error(file!.location, "\(what) takes one of 'env' or 'file', not both")
            case (.some(let e), nil):
                if let v = string(e, "env", nonEmpty: true) { source = .env(v) }
            case (nil, .some(let f)):
                if let t = template(f, Scope(what: "a secret's file path")) { source = .file(t) }
            }
            let required = pair.value["required"].flatMap { bool($0, "required") } ?? true
            if let source {
                out[name] = SecretDeclaration(
                    name: name, source: source, required: required, location: pair.key.location)
            }
        }
        return out
    }

    mutating func decodeInputs(_ node: YAMLNode) -> [String: InputDeclaration] {
        if node.isNull { return [:] }  // `inputs:` with nothing under it
        guard let pairs = mapping(node, "inputs") else { return [:] }
        var out: [String: InputDeclaration] = [:]
        let kinds = ["csv", "jsonl", "dir", "range"]
        for pair in pairs {
            guard let name = checkName(pair.key, "input") else { continue }
            let what = "input '\(name)'"
            guard let fields = mapping(pair.value, what) else { continue }
            let present = kinds.filter { pair.value[$0] != nil }
            declaredInputs.insert(name)
            guard present.count == 1 else {
                sink.error(
                    present.count > 1
                        ? fields.first { $0.key.scalar == present[1] }!.key.location : pair.value.location,
                    present.isEmpty
                        ? "\(what) needs one of 'csv', 'jsonl', 'dir' or 'range'"
                        : "\(what) takes one of 'csv', 'jsonl', 'dir' or 'range', not both '\(present[0])' and "
                            + "'\(present[1])'")
                checkKeys(fields, allowed: kinds + ["columns", "header", "delimiter", "glob"], in: what)
                continue
            }
            let scope = Scope(what: "an input path")
            switch present[0] {
            case "csv":
                checkKeys(fields, allowed: ["csv", "columns", "header", "delimiter"], in: what)
                let columns = pair.value["columns"].flatMap { stringList($0, "columns") }
                let header = pair.value["header"].flatMap { bool($0, "header") } ?? true
                if !header, columns == nil {
                    sink.error(pair.value.location, "\(what) has no header row, so it needs 'columns'")
                }
                var delimiter: Character = ","
                if let d = pair.value["delimiter"], let text = string(d, "delimiter") {
                    if text.count == 1, text.first!.isASCII, text != "\"", text != "\n", text != "\r" {
                        delimiter = text.first!
                    } else {
                        sink.error(
                            d.location, "'delimiter' must be one ASCII character other than a quote or a line break")
                    }
                }
                if let path = template(pair.value["csv"]!, scope) {
                    out[name] = InputDeclaration(
                        name: name, source: .csv(path: path, columns: columns, header: header, delimiter: delimiter),
                        location: pair.key.location)
                }
            case "jsonl":
                checkKeys(fields, allowed: ["jsonl"], in: what)
                if let path = template(pair.value["jsonl"]!, scope) {
                    out[name] = InputDeclaration(name: name, source: .jsonl(path: path), location: pair.key.location)
                }
            case "range":
                checkKeys(fields, allowed: ["range"], in: what)
                if let count = template(pair.value["range"]!, Scope(what: "a range count")) {
                    out[name] = InputDeclaration(name: name, source: .range(count: count), location: pair.key.location)
                }
            default:
                checkKeys(fields, allowed: ["dir", "glob"], in: what)
                let glob = pair.value["glob"].flatMap { string($0, "glob", nonEmpty: true) }
                if let path = template(pair.value["dir"]!, scope) {
                    out[name] = InputDeclaration(
                        name: name, source: .directory(path: path, glob: glob), location: pair.key.location)
                }
            }
        }
        return out
    }

    mutating func decodeLock(_ node: YAMLNode) -> LockPolicy {
        func mode(_ n: YAMLNode) -> LockPolicy.Mode? {
            guard let text = string(n, "policy") else { return nil }
            if let m = LockPolicy.Mode(rawValue: text) { return m }
            let names = LockPolicy.Mode.allCases.map(\.rawValue)
            sink.error(
                n.location,
                "unknown lock policy '\(text)'; use one of \(names.joined(separator: ", "))"
                    + Suggestion.didYouMean(text, in: names))
            return nil
        }
        if node.scalar != nil { return LockPolicy(mode: mode(node) ?? .fail) }
        guard let fields = mapping(node, "lock") else { return LockPolicy() }
        checkKeys(fields, allowed: ["policy", "timeout", "scope"], in: "lock")
        let m = node["policy"].flatMap(mode) ?? .fail
        let timeout = node["timeout"].flatMap { duration($0, "timeout") }
        if timeout != nil, m != .wait {
            sink.error(node["timeout"]!.location, "'timeout' only applies to lock policy 'wait'")
        }
        var scope = LockPolicy.Scope.identity
        if let n = node["scope"], let text = string(n, "scope") {
            if let parsed = LockPolicy.Scope(rawValue: text) {
                scope = parsed
            } else {
                let names = LockPolicy.Scope.allCases.map(\.rawValue)
                sink.error(
                    n.location,
                    "unknown lock scope '\(text)'; use one of \(names.joined(separator: ", "))"
                        + Suggestion.didYouMean(text, in: names))
            }
        }
        return LockPolicy(mode: m, timeout: timeout, scope: scope)
    }

    // MARK: - Steps

    mutating func decodeStep(_ node: YAMLNode) -> Step? {
        guard let pairs = mapping(node, "a step") else { return nil }
        let rawID = node["id"]?.scalar
        let what = rawID.map { "step '\($0)'" } ?? "step at line \(node.location.line)"
        checkKeys(pairs, allowed: Self.stepKeys, in: what)
        requireKeys(["id", "action"], in: pairs, at: node, what: what)
        var id: String?
        if let idNode = node["id"], let text = string(idNode, "id", nonEmpty: true) {
            if Self.isIdentifier(text, dash: true) {
                id = text
            } else {
                sink.error(
                    idNode.location, "step id '\(text)' must be letters, digits, '_' and '-', starting with a letter")
            }
        }
        let action = node["action"].flatMap { string($0, "action", nonEmpty: true) }
        var needs: [String] = []
        if let n = node["needs"] {
            if n.scalar != nil, !n.isNull {
                needs = string(n, "needs").map { [$0] } ?? []
            } else {
                needs = stringList(n, "needs") ?? []
            }
        }
        var forEach: Step.ForEach?
        var scope = Scope(what: "a step", step: id)
        if let f = node["for_each"], let text = string(f, "for_each", nonEmpty: true) {
            if text.contains("${{") {
                if let t = template(f, Scope(what: "for_each", step: id)) { forEach = .template(t) }
            } else if let input = inputs[text] {
                forEach = .input(text)
                scope.itemFields = input.knownFields
                scope.itemInput = text
            } else if !declaredInputs.contains(text) {
                sink.error(
                    f.location,
                    "unknown input '\(text)' in for_each" + Suggestion.didYouMean(text, in: inputs.keys.sorted()),
                    hint: "for_each takes an input name or a template such as ${{ vars.list }}")
            }
            scope.allowsItem = true
        }
        var when: Template?
        if let w = node["when"] {
            if w.scalarStyle == .plain, let text = w.scalar, let b = YAMLNode.bool(text) {
                when = Template(literal: b ? "true" : "false")
            } else if let text = string(w, "when", nonEmpty: true) {
                var whenScope = scope
                whenScope.what = "when"
                if text.contains("${{") {
                    when = template(w, whenScope)
                } else {
                    // A bare expression: `when: vars.env == 'prod'`.
                    when = template(w, whenScope, wrapping: true)
                }
            }
        }
        var with: [String: ParameterValue] = [:]
        if let w = node["with"], !w.isNull, let fields = mapping(w, "with") {
            var withScope = scope
            withScope.what = "with"
            withScope.allowsSecrets = true
            for field in fields {
                guard let key = field.key.scalar else { continue }
                if let value = parameter(field.value, withScope) { with[key] = value }
            }
        }
        var settingTemplates: [String: Template] = [:]
        for key in Self.templatedSettingKeys {
            guard let value = node[key], value.scalar?.contains("${{") == true else { continue }
            if let t = template(value, Scope(what: key, step: id)) { settingTemplates[key] = t }
        }
        let settings = decodeSettings(node, what: what, allowExtra: true)
        var batch: Int?
        if let b = node["batch"], settingTemplates["batch"] == nil {
            batch = int(b, "batch", minimum: 1)
        }
        if node["batch"] != nil, forEach == nil {
            sink.error(
                node["batch"]!.location, "'batch' needs 'for_each': it sets how many items go to the action at once")
        }
        guard let id, let action else { return nil }
        return Step(
            id: id, action: action, with: with, needs: needs, forEach: forEach, when: when, settings: settings,
            location: node.location, batch: batch, settingTemplates: settingTemplates)
    }

    mutating func parameter(_ node: YAMLNode, _ scope: Scope) -> ParameterValue? {
        switch node.kind {
        case .sequence(let items): return .list(items.compactMap { parameter($0, scope) })
        case .mapping(let pairs):
            var out: [String: ParameterValue] = [:]
            for pair in pairs {
                guard let key = pair.key.scalar else { continue }
                if let value = parameter(pair.value, scope) { out[key] = value }
            }
            return .object(out)
        case .scalar(let text, let style):
            if style == .plain, node.tag == nil {
                if node.isNull { return .null }
                if let b = YAMLNode.bool(text) { return .bool(b) }
                if let i = YAMLNode.int(text) { return .int(i) }
                if let d = Double(text), text.first?.isNumber == true || text.first == "-" { return .double(d) }
            }
            return template(node, scope).map(ParameterValue.template)
        }
    }

    mutating func decodeSettings(_ node: YAMLNode, what: String, allowExtra: Bool) -> StepSettings {
        guard let pairs = node.mapping else {
            sink.error(node.location, "'\(what)' must be a mapping, found \(node.typeName)")
            return StepSettings()
        }
        if !allowExtra { checkKeys(pairs, allowed: Self.settingKeys, in: what) }
        var settings = StepSettings()
        if let c = node["concurrency"], !(allowExtra && c.scalar?.contains("${{") == true) {
            settings.concurrency = int(c, "concurrency", minimum: 1)
        }
        if let r = node["rate_limit"], let value = number(r, "rate_limit") {
            if value > 0 {
                settings.rateLimit = value
            } else {
                sink.error(r.location, "'rate_limit' must be greater than 0")
            }
        }
        settings.retry = node["retry"].flatMap { decodeRetry($0) }
        if let t = node["timeout"], let d = duration(t, "timeout") {
            if d > .zero { settings.timeout = d } else { sink.error(t.location, "'timeout' must be greater than 0") }
        }
        if let m = node["max_failures"] {
            if let text = m.scalar, !m.isNull, m.mapping == nil, let budget = MaxFailures(text: text) {
                settings.maxFailures = budget
            } else {
                let shown = m.scalar.map { "'\($0)'" } ?? m.typeName
                sink.error(
                    m.location,
                    "bad max_failures \(shown); use a count such as 10 or a percentage such as \"5%\" (0-100%)")
            }
        }
        return settings
    }

    mutating func decodeRetry(_ node: YAMLNode) -> RetrySettings? {
        guard let pairs = mapping(node, "retry") else { return nil }
        checkKeys(pairs, allowed: ["attempts", "backoff", "jitter", "on"], in: "retry")
        var policy = RetrySettings(attempts: 3)
        if let a = node["attempts"], let n = int(a, "attempts", minimum: 1) { policy.attempts = n }
        if let b = node["backoff"], let fields = mapping(b, "backoff") {
            checkKeys(fields, allowed: ["initial", "max", "multiplier"], in: "backoff")
            if let i = b["initial"], let d = duration(i, "initial") { policy.backoff.initial = d }
            if let m = b["max"], let d = duration(m, "max") { policy.backoff.max = d }
            if let m = b["multiplier"], let x = number(m, "multiplier") {
                if x >= 1 {
                    policy.backoff.multiplier = x
                } else {
                    sink.error(m.location, "'multiplier' must be at least 1")
                }
            }
            if policy.backoff.max < policy.backoff.initial {
                sink.error(b.location, "backoff 'max' is smaller than 'initial'")
            }
        }
        if let j = node["jitter"], let text = string(j, "jitter") {
            if let jitter = RetrySettings.Jitter(rawValue: text) {
                policy.jitter = jitter
            } else {
                let names = RetrySettings.Jitter.allCases.map(\.rawValue)
                sink.error(
                    j.location,
                    "unknown jitter '\(text)'; use one of \(names.joined(separator: ", "))"
                        + Suggestion.didYouMean(text, in: names))
            }
        }
        if let o = node["on"], let items = sequence(o, "on") {
            var on = Set<RetrySettings.Condition>()
            let names = RetrySettings.Condition.allCases.map(\.rawValue)
            for item in items {
                guard let text = string(item, "on") else { continue }
                if let c = RetrySettings.Condition(rawValue: text) {
                    on.insert(c)
                } else {
                    sink.error(
                        item.location,
                        "unknown retry condition '\(text)'; use \(names.joined(separator: ", "))"
                            + Suggestion.didYouMean(text, in: names))
                }
            }
            policy.on = on
        }
        return policy
    }
}
