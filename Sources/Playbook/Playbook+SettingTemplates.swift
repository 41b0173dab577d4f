/// Step settings written as templates of vars, made concrete once the vars are known.
extension Playbook {
    /// The playbook with every step's templated settings (``Step/settingTemplates``) evaluated in
    /// `context` (vars and env; secrets are never available to settings).
    ///
    /// - Throws: ``TemplateEvaluationError`` naming the step and setting when a template fails or its
    ///   value is not a whole number of at least 1.
    public func resolvingSettingTemplates(in context: TemplateContext) throws(TemplateEvaluationError) -> Playbook {
        var resolved = self
        var context = context
        context.allowsSecrets = false
        for index in resolved.steps.indices {
            let step = resolved.steps[index]
            for (name, template) in step.settingTemplates.sorted(by: { $0.key < $1.key }) {
                let text: String
                do {
                    text = try template.render(in: context)
                } catch {
                    throw TemplateEvaluationError("step '\(step.id)', \(name): \(error.message)")
                }
                guard let value = Int(text), value >= 1 else {
                    throw TemplateEvaluationError(
                        "step '\(step.id)', \(name): '\(text)' is not a whole number of at least 1")
                }
                switch name {
                case "concurrency": resolved.steps[index].settings.concurrency = value
                default: resolved.steps[index].batch = value
                }
            }
        }
        return resolved
    }
}
