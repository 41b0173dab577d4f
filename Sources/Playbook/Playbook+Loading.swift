import Foundation

extension Playbook {
    /// Options for loading and validating.
    public struct ValidationOptions: Sendable {
        /// Action names the jobs layer provides; when set, an unknown `action` is an error.
        public var knownActions: Set<String>?
        /// The alias-expansion bound (see ``YAMLLoader``).
        public var maxExpandedNodes: Int

        /// Creates options.
        public init(knownActions: Set<String>? = nil, maxExpandedNodes: Int = 100_000) {
            self.knownActions = knownActions
            self.maxExpandedNodes = maxExpandedNodes
        }
    }

    /// The outcome of validation: the model when there were no errors, and every diagnostic.
    public struct ValidationResult: Sendable {
        /// The playbook, or `nil` if any error was found.
        public var playbook: Playbook?
        /// All problems, in source order.
        public var diagnostics: [Diagnostic]
        /// The source text, for rendering.
        public var source: String

        /// Whether there is no error.
        public var isValid: Bool { playbook != nil }
        /// Every diagnostic rendered with its source line and caret.
        public var rendered: String { Diagnostic.render(diagnostics, source: source) }
    }

    /// Validates playbook text and reports ALL problems: YAML syntax, duplicate and unknown keys, types,
    /// durations, cron, templates, `needs` and cycles.
    ///
    /// - Parameters:
    ///   - text: the file contents.
    ///   - file: the name used in diagnostics (`file:line:col`).
    public static func validate(_ text: String, file: String, options: ValidationOptions = .init())
        -> ValidationResult
    {
        validate(text, file: file, options: options, hash: PlaybookHash(of: Array(text.utf8)))
    }

    static func validate(_ text: String, file: String, options: ValidationOptions, hash: PlaybookHash)
        -> ValidationResult
    {
        let loaded = YAMLLoader(maxExpandedNodes: options.maxExpandedNodes).load(text, file: file)
        var diagnostics = loaded.diagnostics
        guard let root = loaded.root else {
            if diagnostics.isEmpty {
                diagnostics.append(Diagnostic(file: file, line: 1, column: 1, message: "the playbook is empty"))
            }
            return ValidationResult(playbook: nil, diagnostics: diagnostics, source: text)
        }
        // Alias bombs and second documents stop the loader; the partial tree is not worth decoding.
        if loaded.diagnostics.contains(where: { !$0.message.hasPrefix("duplicate key") }) {
            return ValidationResult(playbook: nil, diagnostics: diagnostics, source: text)
        }
        var decoder = PlaybookDecoder(file: file, options: options, source: text)
        let playbook = decoder.decode(root, hash: hash)
        decoder.sink.append(diagnostics)
        diagnostics = decoder.sink.sorted
        let valid = diagnostics.contains { $0.severity == .error } ? nil : playbook
        return ValidationResult(playbook: valid, diagnostics: diagnostics, source: text)
    }

    /// Parses and validates playbook text.
    ///
    /// - Throws: ``PlaybookError`` with every diagnostic.
    public static func parse(_ text: String, file: String, options: ValidationOptions = .init())
        throws(PlaybookError) -> Playbook
    {
        let result = validate(text, file: file, options: options)
        guard let playbook = result.playbook else {
            throw PlaybookError(diagnostics: result.diagnostics, source: text)
        }
        return playbook
    }

    /// Reads, parses and validates a playbook file; diagnostics use `url.relativePath` as the file name.
    ///
    /// - Throws: ``PlaybookError`` when the file cannot be read, is larger than
    ///   ``YAMLLoader/defaultMaxBytes``, is not UTF-8 (at the line and column of the first bad byte), or
    ///   is invalid.
    public static func load(contentsOf url: URL, options: ValidationOptions = .init()) throws(PlaybookError)
        -> Playbook
    {
        let name = url.relativePath
        let data = try readSource(url, file: name)
        let text = try decodeSource(data, file: name)
        // Hash the bytes as stored, so the fingerprint does not depend on text decoding.
        let result = validate(text, file: name, options: options, hash: PlaybookHash(of: data))
        guard let playbook = result.playbook else {
            throw PlaybookError(diagnostics: result.diagnostics, source: text)
        }
        return playbook
    }

    /// A playbook file's bytes, read only up to the size a playbook may have: a larger file (a 50 MB
    /// scalar) is refused after reading one byte past the limit, never read whole.
    /// - Throws: ``PlaybookError`` when it cannot be read or is too large.
    public static func readSource(_ url: URL, file name: String, maxBytes: Int = YAMLLoader.defaultMaxBytes)
        throws(PlaybookError) -> Data
    {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.read(upToCount: maxBytes + 1) ?? Data()
        } catch {
            throw PlaybookError(diagnostics: [
                Diagnostic(file: name, line: 1, column: 1, message: "cannot read the playbook file")
            ])
        }
        guard data.count <= maxBytes else {
            throw PlaybookError(diagnostics: [
                Diagnostic(
                    file: name, line: 1, column: 1,
                    message: "the playbook file is larger than the \(maxBytes) bytes a playbook may have")
            ])
        }
        return data
    }

    /// A playbook's bytes as text.
    /// - Throws: ``PlaybookError`` at the line and column (1-based, in bytes) of the first byte that is
    ///   not UTF-8, with its byte offset.
    public static func decodeSource(_ data: Data, file name: String) throws(PlaybookError) -> String {
        if let text = String(validating: data, as: UTF8.self) { return text }
        let bytes = [UInt8](data)
        let offset = firstInvalidUTF8(bytes) ?? 0
        var line = 1
        var lineStart = 0
        for index in 0..<offset where bytes[index] == 0x0a {
            line += 1
            lineStart = index + 1
        }
        throw PlaybookError(diagnostics: [
            Diagnostic(
                file: name, line: line, column: offset - lineStart + 1,
                message: "the playbook file is not UTF-8 text: byte \(offset) (0x"
                    + String(bytes[offset], radix: 16, uppercase: true) + ") is not valid UTF-8")
        ])
    }

    /// The offset of the first byte that does not start (or continue) a valid UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}
