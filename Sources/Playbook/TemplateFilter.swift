/// A filter after `|` in a template expression.
public enum TemplateFilter: Sendable, Hashable {
    /// `default('x')`: the fallback when the value is missing, null or empty.
    case `default`(TemplateValue)
    /// `lower`: lowercased text.
    case lower
    /// `upper`: uppercased text.
    case upper
    /// `trim`: text without leading and trailing white space.
    case trim
    /// `format('%05d')`: printf-style formatting of one value.
    case format(FormatSpec)
    /// `join(',')`: the items of a list joined by a separator.
    case join(String)
    /// `date('%Y-%m')`: a time (Unix seconds, such as `now`, or RFC 3339 text) formatted in UTC.
    case date(DateFormat)

    /// The filter names, for "did you mean".
    public static let names = ["default", "lower", "upper", "trim", "format", "join", "date"]
}
