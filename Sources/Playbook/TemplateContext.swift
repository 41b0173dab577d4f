import Foundation

/// The values a template is evaluated against.
public struct TemplateContext: Sendable {
    /// Resolved playbook vars (see ``Playbook/resolveVars(_:)``).
    public var vars: [String: TemplateValue]
    /// The current `for_each` item: a CSV row (`.object` of strings), a JSON value, or a file entry.
    public var item: TemplateValue?
    /// Outputs of finished steps, by step id then output name.
    public var steps: [String: [String: TemplateValue]]
    /// The process environment.
    public var env: [String: String]
    /// Resolved secrets; read only when ``allowsSecrets`` is true.
    public var secrets: [String: SecretValue]
    /// `now` in templates: Unix seconds when the context was made (for a run, when the command started),
    /// so every template of one command sees the same time.
    public var now: Int64
    /// True only while rendering a step's `with` parameters for an action; everything printable
    /// (conditions, paths, names) is rendered with this false so a secret cannot leak into output.
    public var allowsSecrets: Bool

    /// Creates a context.
    public init(
        vars: [String: TemplateValue] = [:], item: TemplateValue? = nil, steps: [String: [String: TemplateValue]] = [:],
        env: [String: String] = [:], secrets: [String: SecretValue] = [:], allowsSecrets: Bool = false,
        now: Int64 = Int64(Date().timeIntervalSince1970)
    ) {
        self.now = now
        self.vars = vars
        self.item = item
        self.steps = steps
        self.env = env
        self.secrets = secrets
        self.allowsSecrets = allowsSecrets
    }
}
