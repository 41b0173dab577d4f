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

/// A declared var (`vars: {name: {type: ..., default: ..., required: ...}}`).
public struct VarDeclaration: Sendable, Hashable {
    /// The var name, as used in `${{ vars.name }}`.
    public var name: String
    /// The declared type.
    public var type: VarType
    /// For `enum`: the allowed values.
    public var choices: [String]
    /// The value when not set on the command line.
    public var defaultValue: TemplateValue?
    /// Whether a value must be given (a required var has no default).
    public var required: Bool
    /// Free text shown by `walletops describe`.
    public var description: String?
    /// Where it was declared.
    public var location: SourceLocation
}

/// Where a secret comes from: never the command line or the playbook itself.
public enum SecretSource: Sendable, Hashable {
    /// An environment variable.
    case env(String)
    /// A file whose content (without a trailing newline) is the secret; the path may use vars and env.
    case file(Template)
}

/// A declared secret (`secrets: {name: {env: VAR}}` or `{file: path}`).
public struct SecretDeclaration: Sendable, Hashable {
    /// The secret name, as used in `${{ secrets.name }}`.
    public var name: String
    /// Where it is read from.
    public var source: SecretSource
    /// Whether a missing secret is an error before the run starts (default true).
    public var required: Bool
    /// Where it was declared.
    public var location: SourceLocation
}

/// A declared input that a step iterates with `for_each`.
public struct InputDeclaration: Sendable, Hashable {
    /// The kind of input and its parameters.
    public enum Source: Sendable, Hashable {
        /// RFC 4180 CSV; each item is an object of column name to text.
        /// `columns`: with a header, the columns that must be present; without one, the column names.
        case csv(path: Template, columns: [String]?, header: Bool, delimiter: Character)
        /// JSON Lines; each item is the line's JSON value.
        case jsonl(path: Template)
        /// The files of a directory, sorted by name, filtered by a glob; each item is `{path, name}`.
        case directory(path: Template, glob: String?)
    }

    /// The input name, as used in `for_each: name`.
    public var name: String
    /// What it reads.
    public var source: Source
    /// Where it was declared.
    public var location: SourceLocation

    /// The fields an item is known to have, if fixed (CSV with columns, directory entries).
    public var knownFields: [String]? {
        switch source {
        case .csv(_, let columns, _, _): return columns
        case .jsonl: return nil
        case .directory: return ["path", "name"]
        }
    }
}
