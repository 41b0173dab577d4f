extension Playbook {
    /// Resolves vars from `--var name=value` arguments and declared defaults.
    ///
    /// Each argument is `name=value`; the value is converted to the declared type (lists are
    /// comma-separated). A later argument for the same name wins.
    ///
    /// - Throws: ``VarError`` listing every problem: a malformed argument, an unknown var (with
    ///   "did you mean"), an attempt to set a secret, a value of the wrong type, a missing required var.
    public func resolveVars(_ assignments: [String]) throws(VarError) -> [String: TemplateValue] {
        var problems: [String] = []
        var values: [String: TemplateValue] = [:]
        var given = Set<String>()  // set on the command line, even if invalid (reported once)
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else {
                problems.append("--var '\(assignment)': expected name=value")
                continue
            }
            let name = String(assignment[..<equals])
            let text = String(assignment[assignment.index(after: equals)...])
            if secrets[name] != nil {
                problems.append(
                    "'\(name)' is a secret; secrets are read from the environment or a file, never from the command line"
                )
                continue
            }
            guard let declaration = vars[name] else {
                problems.append("--var: unknown var '\(name)'" + Suggestion.didYouMean(name, in: vars.keys.sorted()))
                continue
            }
            do {
                values[name] = try declaration.coerce(text)
                given.insert(name)
            } catch {
                problems += error.problems
                given.insert(name)
            }
        }
        for declaration in vars.values.sorted(by: { $0.name < $1.name }) where !given.contains(declaration.name) {
            if let value = declaration.defaultValue {
                values[declaration.name] = value
            } else if declaration.required {
                problems.append("var '\(declaration.name)' is required; set it with --var \(declaration.name)=<value>")
            }
        }
        guard problems.isEmpty else { throw VarError(problems: problems) }
        return values
    }
}
