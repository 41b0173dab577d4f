import Foundation

/// Streams the items of a declared input: CSV rows, JSON Lines values, or directory entries.
///
/// The input's path template is rendered with the given context (vars and env; secrets are not available).
/// A relative path is opened in the folder the reader is given, never the process's working directory: a
/// worker runs each joined run in that run's own folder.
public final class InputReader {
    private enum Backend {
        case csv(CSVReader)
        case jsonl(JSONLReader)
        case directory([DirectoryLister.Entry], Int)
        case range(count: Int, next: Int)
    }

    /// The input being read.
    public let declaration: InputDeclaration
    /// The rendered path, as typed (relative paths stay relative; a directory's entries carry it).
    public let path: String
    private var backend: Backend
    private var count = 0

    /// Opens an input, a relative path in `folder` (nil: the process's working directory).
    ///
    /// - Throws: ``InputError`` if the path template fails or the file cannot be opened.
    public init(
        _ declaration: InputDeclaration, context: TemplateContext, folder: URL? = nil, chunkSize: Int = 65_536
    ) throws(InputError) {
        self.declaration = declaration
        var context = context
        context.allowsSecrets = false
        do {
            path = try declaration.template.render(in: context)
        } catch {
            throw InputError(file: declaration.name, message: "input path: \(error.message)")
        }
        let url = Self.fileURL(path, in: folder)
        switch declaration.source {
        case .csv(_, let columns, let header, let delimiter):
            backend = .csv(
                try CSVReader(
                    url: url, header: header, columns: columns, delimiter: delimiter,
                    chunkSize: chunkSize))
        case .jsonl:
            backend = .jsonl(try JSONLReader(url: url, chunkSize: chunkSize))
        case .directory(_, let glob):
            backend = .directory(try DirectoryLister.list(directory: path, glob: glob, in: folder), 0)
        case .range:
            guard let count = Int(path.trimmingCharacters(in: .whitespaces)), count >= 0 else {
                throw InputError(
                    file: declaration.name, message: "range: '\(path)' is not a count (a whole number, 0 or more)")
            }
            backend = .range(count: count, next: 1)
        }
    }

    /// `path` as a file URL relative to `folder` (nil: the process's working directory): its `path` is the
    /// one to open, its `relativePath` the one typed, which errors name.
    static func fileURL(_ path: String, in folder: URL?) -> URL {
        guard let folder else { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: folder.path, isDirectory: true))
    }

    /// Reads the rest of the input only to count its items, checking it as ``next()`` would (it throws
    /// what `next()` would throw). CSV rows are checked without being built, several times faster
    /// than calling `next()` to the end; the reader is at the end afterwards.
    public func countRemaining() throws(InputError) -> Int {
        switch backend {
        case .csv(let reader):
            let rows = try reader.countRemaining()
            count += rows
            return rows
        case .range(let total, let next):
            backend = .range(count: total, next: total + 1)
            count += max(0, total - next + 1)
            return max(0, total - next + 1)
        default:
            var rows = 0
            while try next() != nil { rows += 1 }
            return rows
        }
    }

    /// The next item's key and its fields as text, or `nil` at the end: what a work item carries. A CSV
    /// row's columns as they are (no template value is built for it); another item's members as text
    /// (non-string members as JSON), or a non-object item as the field `value`
    /// (``TemplateValue/textFields``).
    public func nextTextFields() throws(InputError) -> (key: String, fields: [String: String])? {
        guard let item = try nextTextItem() else { return nil }
        return (item.key, item.single.map { [$0.name: $0.value] } ?? item.fields)
    }

    /// ``nextTextFields()`` that gives a one-column CSV row's field alone in `single` (with `fields`
    /// empty), so a caller that keeps it as it is allocates nothing for the row.
    public func nextTextItem() throws(InputError) -> (
        key: String, fields: [String: String], single: (name: String, value: String)?
    )? {
        if case .csv(let reader) = backend {
            guard let record = try reader.nextLean() else { return nil }
            count += 1
            return (Self.rowKey(record.row), record.values, record.single.map { (reader.columns[0], $0) })
        }
        if case .range(let total, let next) = backend {
            // A number needs no template value: its one field as it is.
            guard next <= total else { return nil }
            backend = .range(count: total, next: next + 1)
            count += 1
            return ("index:\(next)", [:], ("index", String(next)))
        }
        guard let item = try next() else { return nil }
        return (item.key, item.value.textFields, nil)
    }

    /// `row:<n>`, written into a stack buffer and decoded once (no concatenation, no integer-to-string
    /// conversion of its own).
    static func rowKey(_ row: Int) -> String {
        guard row >= 0 else { return "row:\(row)" }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            var end = 24
            var rest = row
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            for byte in "row:".utf8.reversed() {
                end -= 1
                buffer[end] = byte
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[end...]), as: UTF8.self)
        }
    }

    /// The next item, or `nil` at the end.
    public func next() throws(InputError) -> InputItem? {
        switch backend {
        case .csv(let reader):
            guard let record = try reader.next() else { return nil }
            count += 1
            return InputItem(index: count, line: record.line, key: "row:\(record.row)", value: record.item)
        case .jsonl(let reader):
            guard let record = try reader.next() else { return nil }
            count += 1
            return InputItem(index: count, line: record.line, key: "line:\(record.line)", value: record.value)
        case .directory(let entries, let position):
            guard position < entries.count else { return nil }
            backend = .directory(entries, position + 1)
            count += 1
            return InputItem(index: count, line: nil, key: entries[position].name, value: entries[position].item)
        case .range(let total, let next):
            guard next <= total else { return nil }
            backend = .range(count: total, next: next + 1)
            count += 1
            return InputItem(
                index: count, line: nil, key: "index:\(next)", value: .object(["index": .string(String(next))]))
        }
    }
}

@available(*, unavailable, message: "a reader holds a file position; use it from one task")
extension InputReader: Sendable {}
