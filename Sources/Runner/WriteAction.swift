import Foundation
import Synchronization
import TextFormats

/// Writes one row per item to a CSV or JSON Lines report.
///
/// Columns are item fields; a secret field is written as `[redacted]`. A CSV header is written when the
/// file is new or empty. Reports are appended at least once: after a crash, rows of items whose
/// outcome was not yet checkpointed can appear twice (the bound is in docs/engine.md).
/// CSV quoting follows <https://www.rfc-editor.org/rfc/rfc4180>; JSON Lines <https://jsonlines.org>.
public final class WriteAction: Action {
    /// The report format.
    public enum Format: Sendable, Equatable {
        case csv
        case jsonLines
    }

    /// The file.
    public let path: String
    /// The format.
    public let format: Format
    /// The item fields written, in order; the item key is always the first column, `key`.
    public let columns: [String]
    private let handle = Mutex<FileHandle?>(nil)

    public init(path: String, format: Format, columns: [String]) {
        self.path = path
        self.format = format
        self.columns = columns
    }

    deinit { handle.withLock { try? $0?.close() } }

    public var name: String { "write" }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let values =
            [item.key]
            + columns.map { name in
                item.secretFields.contains(name) ? WorkItem.redactedMarker : (item.field(name) ?? "")
            }
        let line: String
        switch format {
        case .csv:
            line = CSVField.record(values) + "\r\n"
        case .jsonLines:
            var object = "{"
            for (offset, name) in (["key"] + columns).enumerated() {
                if offset > 0 { object += "," }
                JSONString.append(name, to: &object)
                object += ":"
                JSONString.append(values[offset], to: &object)
            }
            line = object + "}\n"
        }
        try handle.withLock { handle in
            if handle == nil {
                if !FileManager.default.fileExists(atPath: path) {
                    _ = FileManager.default.createFile(atPath: path, contents: nil)
                }
                guard let opened = FileHandle(forWritingAtPath: path) else {
                    throw ActionError.permanent("cannot open report \(path)")
                }
                let end = try opened.seekToEnd()
                if end == 0 && format == .csv {
                    try opened.write(
                        contentsOf: Data((CSVField.record(["key"] + columns) + "\r\n").utf8))
                }
                handle = opened
            }
            try handle!.write(contentsOf: Data(line.utf8))
        }
        return .empty
    }
}
