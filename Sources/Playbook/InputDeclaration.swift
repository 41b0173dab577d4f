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
        /// The numbers 1 through `count` (a template of vars, rendered when the step starts); each item is
        /// `{index}`, keyed `index:<n>`: work that is numbered rather than read, in constant memory.
        case range(count: Template)
    }

    /// The input name, as used in `for_each: name`.
    public var name: String
    /// What it reads.
    public var source: Source
    /// Where it was declared.
    public var location: SourceLocation

    /// The template that names the input: the path of a file or directory, the count of a range.
    public var template: Template {
        switch source {
        case .csv(let path, _, _, _), .jsonl(let path), .directory(let path, _): return path
        case .range(let count): return count
        }
    }

    /// The fields an item is known to have, if fixed (CSV with columns, directory entries).
    public var knownFields: [String]? {
        switch source {
        case .csv(_, let columns, _, _): return columns
        case .jsonl: return nil
        case .directory: return ["path", "name"]
        case .range: return ["index"]
        }
    }
}
