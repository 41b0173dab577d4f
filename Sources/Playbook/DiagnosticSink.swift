/// Collects diagnostics for one file while validation keeps going after the first error.
struct DiagnosticSink {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    mutating func error(_ location: SourceLocation, _ message: String, hint: String? = nil) {
        diagnostics.append(Diagnostic(.error, file: file, at: location, message, hint: hint))
    }

    mutating func append(_ other: [Diagnostic]) { diagnostics += other }

    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// Sorted by position so output reads top to bottom; the sort is stable for equal positions.
    var sorted: [Diagnostic] {
        diagnostics.enumerated().sorted { a, b in
            (a.element.line, a.element.column, a.offset) < (b.element.line, b.element.column, b.offset)
        }.map(\.element)
    }
}
