/// Replaces every occurrence of a secret value in text with `***`, for logs, errors and reports.
///
/// Longer secrets are replaced first so a secret that contains another is hidden whole. Empty values
/// are ignored; every other value is redacted, however short (a short secret is still a secret).
public struct Redactor: Sendable {
    /// The replacement text.
    public static let mask = "***"

    private let values: [String]

    /// Creates a redactor for the given secret values.
    public init(secrets: some Sequence<String>) {
        values = Set(secrets.filter { !$0.isEmpty }).sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// Creates a redactor for resolved secrets.
    public init(_ secrets: [String: SecretValue]) {
        self.init(secrets: secrets.values.map(\.reveal))
    }

    /// Whether there is nothing to redact.
    public var isEmpty: Bool { values.isEmpty }

    /// `text` with every secret value replaced by `***`.
    public func redact(_ text: String) -> String {
        guard !values.isEmpty else { return text }
        var out = text
        for value in values where out.contains(value) {
            out = out.replacing(value, with: Self.mask)
        }
        return out
    }
}
