/// One step of a playbook: an action run once, or once per item of `for_each`.
public struct Step: Sendable, Hashable, Identifiable {
    /// What a step iterates.
    public enum ForEach: Sendable, Hashable {
        /// The items of a declared input.
        case input(String)
        /// The list a template evaluates to (`${{ vars.wallets }}`, `${{ steps.list.outputs.ids }}`).
        case template(Template)
    }

    /// The unique step id (letters, digits, `_`, `-`; starts with a letter or `_`).
    public var id: String
    /// The action name, such as `wallet.create`; the set of actions belongs to the jobs layer.
    public var action: String
    /// Action parameters; string values are templates, rendered per item with secrets allowed.
    public var with: [String: ParameterValue]
    /// Steps that must finish first.
    public var needs: [String]
    /// Iteration, if any.
    public var forEach: ForEach?
    /// A condition evaluated before the step (per item inside `for_each`); false skips.
    public var when: Template?
    /// Step settings as written (not merged with defaults; see ``Playbook/effectiveSettings(for:)``).
    public var settings: StepSettings
    /// Where the step starts in the file.
    public var location: SourceLocation
    /// Items per chunk (`batch:`) for a chunk action, nil: the action's own default. Only with `for_each`.
    public var batch: Int?
    /// Settings written as templates of vars (`concurrency: ${{ vars.parallel }}`, `batch: ${{ vars.batch }}`),
    /// by setting name: resolved once the vars are known (``Playbook/resolvingSettingTemplates(in:)``), so a
    /// job's public vars can size its fan-out without the playbook being edited.
    public var settingTemplates: [String: Template]

    /// Creates a step.
    public init(
        id: String, action: String, with: [String: ParameterValue] = [:], needs: [String] = [],
        forEach: ForEach? = nil, when: Template? = nil, settings: StepSettings = StepSettings(),
        location: SourceLocation = SourceLocation(line: 1, column: 1), batch: Int? = nil,
        settingTemplates: [String: Template] = [:]
    ) {
        self.id = id
        self.action = action
        self.with = with
        self.needs = needs
        self.forEach = forEach
        self.when = when
        self.settings = settings
        self.location = location
        self.batch = batch
        self.settingTemplates = settingTemplates
    }

    /// Evaluates `when` (true when absent). Secrets are not available here.
    public func shouldRun(in context: TemplateContext) throws(TemplateEvaluationError) -> Bool {
        guard let when else { return true }
        var context = context
        context.allowsSecrets = false
        return try when.evaluate(in: context).isTruthy
    }

    /// For a `for_each` template: its list (an error if it is not a list). Secrets are not available.
    public func forEachList(in context: TemplateContext) throws(TemplateEvaluationError) -> [TemplateValue]? {
        guard case .template(let template) = forEach else { return nil }
        var context = context
        context.allowsSecrets = false
        let value = try template.evaluate(in: context)
        guard case .list(let items) = value else {
            throw TemplateEvaluationError("for_each of step '\(id)' must yield a list, got \(value.kindName)")
        }
        return items
    }

    /// Renders `with` for one attempt; secrets are available (the only place they are).
    public func parameters(in context: TemplateContext) throws(TemplateEvaluationError) -> [String: TemplateValue] {
        var context = context
        context.allowsSecrets = true
        var out: [String: TemplateValue] = [:]
        for (key, value) in with {
            do {
                out[key] = try value.evaluate(in: context)
            } catch {
                throw TemplateEvaluationError("step '\(id)', with.\(key): \(error.message)")
            }
        }
        return out
    }
}
