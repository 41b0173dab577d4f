/// The type of a playbook var, which decides how `--var name=value` text is converted.
public enum VarType: String, Sendable, Hashable, CaseIterable {
    /// Any text.
    case string
    /// A decimal integer.
    case int
    /// `true`/`false` (also `yes`/`no`, `1`/`0` on the command line).
    case bool
    /// One of the declared `choices`.
    case `enum`
    /// A list of strings; on the command line, comma-separated.
    case list
    /// A file system path (text; `~/` is expanded when set from the command line).
    case path
    /// A duration such as `30s` or `5m` (kept as its text).
    case duration
}
