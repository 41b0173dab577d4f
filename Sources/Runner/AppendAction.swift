import Foundation
import Synchronization

/// Appends each item's key as a line to a file: a side effect whose exactly-once delivery the tests
/// can check by counting lines.
///
/// The probe answers from the set of keys in the file, read once (at the first probe) and then kept
/// up to date with this process's own appends, so probing many in-doubt items costs one file read.
/// Each append is a single `write(2)` with `O_APPEND`: once it returns, the line survives a crash of
/// the process.
public final class AppendAction: Action {
    private struct State {
        var descriptor: Int32 = -1
        var keys: Set<String>?
    }

    /// The file.
    public let path: String
    private let state = Mutex(State())

    public init(path: String) { self.path = path }

    deinit {
        state.withLock { if $0.descriptor >= 0 { _ = close($0.descriptor) } }
    }

    public var name: String { "append" }
    public var isSideEffecting: Bool { true }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let line = Array((item.key + "\n").utf8)
        try state.withLock { state in
            if state.descriptor < 0 {
                state.descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
                if state.descriptor < 0 {
                    throw ActionError.retryable("cannot open \(path): \(String(cString: strerror(errno)))")
                }
            }
            let written = line.withUnsafeBytes { write(state.descriptor, $0.baseAddress, $0.count) }
            if written != line.count {
                // A short or failed write may have put part of the line in the file: in doubt.
                throw ActionError.inDoubt("append to \(path) failed: \(String(cString: strerror(errno)))")
            }
            state.keys?.insert(item.key)
        }
        return .empty
    }

    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome {
        try state.withLock { state in
            if state.keys == nil {
                var keys = Set<String>()
                if FileManager.default.fileExists(atPath: path) {
                    let data = try Data(contentsOf: URL(fileURLWithPath: path))
                    for line in data.split(separator: UInt8(ascii: "\n")) {
                        keys.insert(String(decoding: line, as: UTF8.self))
                    }
                }
                state.keys = keys
            }
            return state.keys!.contains(item.key) ? .done(.empty) : .notDone
        }
    }
}
