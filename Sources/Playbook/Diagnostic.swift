/// One problem found in a playbook, pointing at the file, line and column that caused it.
///
/// `description` is the one-line compiler form `file:line:col: error: message`; ``render(source:)``
/// adds the source line and a caret under the column, in the style of clang and Yams.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Hashable {
        case error, warning, note
    }

    /// Whether this stops the playbook from running.
    public var severity: Severity
    /// The file name as given to the loader (used verbatim in the output).
    public var file: String
    /// The 1-based line.
    public var line: Int
    /// The 1-based column.
    public var column: Int
    /// What is wrong. Never contains a secret value.
    public var message: String
    /// An optional suggestion printed under the caret line.
    public var hint: String?

    /// Creates a diagnostic.
    public init(
        severity: Severity = .error, file: String, line: Int, column: Int, message: String, hint: String? = nil
    ) {
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.hint = hint
    }

    /// Creates a diagnostic at a ``SourceLocation``.
    public init(
        _ severity: Severity = .error, file: String, at location: SourceLocation, _ message: String,
        hint: String? = nil
    ) {
        self.init(
            severity: severity, file: file, line: location.line, column: location.column, message: message,
            hint: hint)
    }

    /// The location as a value.
    public var location: SourceLocation { SourceLocation(line: line, column: column) }

    /// `file:line:col: error: message`.
    public var description: String { "\(file):\(line):\(column): \(severity.rawValue): \(message)" }

    /// The diagnostic with the offending source line and a caret under the column, then the hint if any.
    ///
    /// - Parameter source: the full text of the file, or `nil` to print only the first line.
    public func render(source: String?) -> String {
        var out = description
        if let source, let text = Self.line(line, of: source) {
            // A long line (a deeply nested one-liner) is shown as the window around the column.
            let window = Self.window(of: text, around: column)
            out += "\n" + window.text + "\n" + Self.caret(under: window.column, of: window.text)
        }
        if let hint { out += "\n    hint: " + hint }
        return out
    }

    /// Renders a list of diagnostics, one block per diagnostic, in source order.
    public static func render(_ diagnostics: [Diagnostic], source: String?) -> String {
        diagnostics.map { $0.render(source: source) }.joined(separator: "\n")
    }

    private static func line(_ number: Int, of source: String) -> String? {
        guard number >= 1 else { return nil }
        var current = 1
        for piece in source.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == number {
                return piece.hasSuffix("\r") ? String(piece.dropLast()) : String(piece)
            }
            current += 1
        }
        return nil
    }

    /// At most `width` characters of `text` around `column` (1-based), with `...` where cut.
    private static func window(of text: String, around column: Int, width: Int = 120) -> (text: String, column: Int) {
        let characters = Array(text)
        guard characters.count > width else { return (text, column) }
        let start = max(0, min(column - 1 - width / 2, characters.count - width))
        let end = min(characters.count, start + width)
        let prefix = start > 0 ? "..." : ""
        let suffix = end < characters.count ? "..." : ""
        return (prefix + String(characters[start..<end]) + suffix, column - start + prefix.count)
    }

    // Keeps tabs so the caret lines up in a terminal that expands them.
    private static func caret(under column: Int, of text: String) -> String {
        var pad = ""
        for (index, character) in text.enumerated() where index < column - 1 {
            pad.append(character == "\t" ? "\t" : " ")
        }
        if column - 1 > text.count { pad += String(repeating: " ", count: column - 1 - text.count) }
        return pad + "^"
    }
}
