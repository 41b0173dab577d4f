/// Where a secret comes from: never the command line or the playbook itself.
public enum SecretSource: Sendable, Hashable {
    /// An environment variable.
    case env(String)
    /// A file whose content (without a trailing newline) is the secret; the path may use vars and env.
    case file(Template)
}
