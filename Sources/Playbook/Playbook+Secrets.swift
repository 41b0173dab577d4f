import Foundation

extension Playbook {
    /// Problems loading secrets; messages name the secret and its source, never a value.
    public struct SecretError: Error, Sendable, Hashable, CustomStringConvertible {
        /// One message per missing or unreadable secret.
        public var problems: [String]
        public var description: String { problems.joined(separator: "\n") }
    }

    /// Reads every declared secret from its environment variable or file (a file's trailing newline
    /// is dropped). Secrets are never read from the command line.
    ///
    /// - Parameters:
    ///   - environment: the environment to read (defaults to the process environment).
    ///   - vars: resolved vars, for file paths that are templates.
    /// - Throws: ``SecretError`` listing each required secret that is missing or unreadable.
    public func loadSecrets(environment: [String: String]? = nil, vars: [String: TemplateValue] = [:])
        throws(SecretError) -> [String: SecretValue]
    {
        let env = environment ?? ProcessInfo.processInfo.environment
        var out: [String: SecretValue] = [:]
        var problems: [String] = []
        for declaration in secrets.values.sorted(by: { $0.name < $1.name }) {
            switch declaration.source {
            case .env(let variable):
                if let value = env[variable], !value.isEmpty {
                    out[declaration.name] = SecretValue(value)
                } else if declaration.required {
                    problems.append("secret '\(declaration.name)': environment variable \(variable) is not set")
                }
            case .file(let template):
                let path: String
                do {
                    path = try template.render(in: TemplateContext(vars: vars, env: env))
                } catch {
                    problems.append("secret '\(declaration.name)': file path: \(error.message)")
                    continue
                }
                if let data = FileManager.default.contents(atPath: path), var text = String(data: data, encoding: .utf8)
                {
                    while text.last?.isNewline == true { text.removeLast() }
                    out[declaration.name] = SecretValue(text)
                } else if declaration.required {
                    problems.append("secret '\(declaration.name)': cannot read file \(path)")
                }
            }
        }
        guard problems.isEmpty else { throw SecretError(problems: problems) }
        return out
    }
}
