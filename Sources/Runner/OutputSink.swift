import Foundation

#if canImport(Glibc)
import Glibc
import TextFormats
#endif

/// A CSV file a chunk step writes one row to per item (or none), in input order.
///
/// The engine appends the rows of the items below the step's watermark at each checkpoint flush and
/// commits the file's byte offset in the same transaction as the watermark; a resumed run truncates the
/// file to that offset and goes on appending, so each row is written once and nothing finished is
/// redone. A path that exists and is not a regular file (a FIFO, a character device such as
/// `/dev/null`) is written in place and never truncated; a symbolic link is written through. See
/// docs/engine.md "Output sinks".
public struct OutputSink: Sendable {
    /// The file (resolved by the action against the run's working directory).
    public var path: String
    /// The header row, written when the file is started.
    public var header: [String]
    /// The rows of an item, in order (none: empty). Called with what the checkpoint keeps of the item, so
    /// the same rows come out after a resume.
    public var rows: @Sendable (SinkRecord) -> [[String]]

    /// A sink of at most one row per item (nil: none).
    public init(path: String, header: [String], row: @escaping @Sendable (SinkRecord) -> [String]?) {
        self.init(path: path, header: header, rows: { record in row(record).map { [$0] } ?? [] })
    }

    /// A sink of any number of rows per item (a session and its grants).
    public init(path: String, header: [String], rows: @escaping @Sendable (SinkRecord) -> [[String]]) {
        self.path = path
        self.header = header
        self.rows = rows
    }
}

/// What a sink row is made from: the item's public fields and its recorded outcome.
public struct SinkRecord: Sendable {
    /// The item's key.
    public var key: String
    /// The item's fields without its secret ones.
    public var fields: [String: String]
    /// `succeeded`, `rejected` or `failed`.
    public var state: ItemState
    /// The outcome's non-secret outputs (a success's result, a reject's outputs).
    public var outputs: [String: String]
    /// The reject reason or the failure message.
    public var message: String?
    /// The failure's class (`permanent`, `retryable`, `in_doubt`), nil for other states.
    public var errorClass: String?

    /// Creates a record.
    public init(
        key: String, fields: [String: String], state: ItemState, outputs: [String: String], message: String?,
        errorClass: String?
    ) {
        self.key = key
        self.fields = fields
        self.state = state
        self.outputs = outputs
        self.message = message
        self.errorClass = errorClass
    }
}

/// The error of a sink file that cannot be opened, truncated or written.
struct SinkError: Error, CustomStringConvertible {
    var description: String
}

/// An open sink file. Written only on the run store's queue (one flush at a time).
final class SinkFile: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    /// False for a FIFO or a device: written in place, never truncated, offsets not meaningful.
    let isRegular: Bool
    /// Bytes in the file (regular files): the offset the next flush commits.
    private(set) var offset: Int64

    private init(path: String, descriptor: Int32, isRegular: Bool, offset: Int64) {
        self.path = path
        self.descriptor = descriptor
        self.isRegular = isRegular
        self.offset = offset
    }

    deinit { close(descriptor) }

    /// Opens `sink`'s file: started afresh (truncated, then the header) when `resumeAt` is nil, else
    /// truncated to the committed offset `resumeAt`.
    static func open(_ sink: OutputSink, resumeAt committed: Int64?) throws -> SinkFile {
        let path = sink.path
        var status = stat()
        let exists = stat(path, &status) == 0
        let isRegular = !exists || (status.st_mode & S_IFMT) == S_IFREG
        if !exists {
            let parent = URL(fileURLWithPath: path).deletingLastPathComponent()
            try? FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        }
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (isRegular && committed == nil ? O_TRUNC : 0)
        let descriptor = Glibc.open(path, flags, 0o644)
        guard descriptor >= 0 else { throw SinkError(description: "cannot write \(path): \(Self.reason())") }
        let file = SinkFile(path: path, descriptor: descriptor, isRegular: isRegular, offset: 0)
        if let committed {
            guard isRegular else { return file }
            var now = stat()
            guard fstat(descriptor, &now) == 0 else {
                throw SinkError(description: "cannot read \(path): \(Self.reason())")
            }
            guard Int64(now.st_size) >= committed else {
                throw SinkError(
                    description:
                        "\(path) has \(now.st_size) bytes but the checkpoint wrote \(committed): it was changed "
                        + "under the run; move it aside and start the run fresh")
            }
            guard ftruncate(descriptor, off_t(committed)) == 0, lseek(descriptor, off_t(committed), SEEK_SET) >= 0
            else { throw SinkError(description: "cannot truncate \(path): \(Self.reason())") }
            file.offset = committed
            // What the stopped run wrote may still be in the page cache only (the file is synced at the
            // step's end): written back now, beside the run, rather than by the step's last fsync.
            file.writeBackInBackground()
        } else {
            var header: [UInt8] = []
            CSVField.appendRecord(sink.header, to: &header)
            try file.append(header)
        }
        return file
    }

    /// Appends `bytes` whole (retrying short writes).
    func append(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw SinkError(description: "cannot write \(path): \(Self.reason())")
            }
            written += result
        }
        offset += Int64(bytes.count)
    }

    /// Flushes the file to stable storage (at the step's end).
    func synchronize() {
        if isRegular { _ = fsync(descriptor) }
    }

    /// Starts writing the file's data back to storage on another thread, through a descriptor of its own,
    /// and returns at once: the step's ``synchronize()`` then has less to wait for. Durability is still
    /// that call's.
    func writeBackInBackground() {
        guard isRegular else { return }
        let copy = dup(descriptor)
        guard copy >= 0 else { return }
        DispatchQueue.global(qos: .utility).async {
            _ = fdatasync(copy)
            close(copy)
        }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}

/// A chunk step's sink files, opened when the first row is written (or when the step completes), so a
/// run that produced nothing leaves no file behind. Used on the run store's queue, and by the step's
/// end once every flush is done.
final class StepSinkFiles: @unchecked Sendable {
    let sinks: [OutputSink]
    /// The committed byte offsets of a resumed run's files (`-1`: not created yet); nil: a new run.
    private let resumeOffsets: [Int64]?
    private var files: [SinkFile]?

    init(_ sinks: [OutputSink], resumeOffsets: [Int64]?) {
        self.sinks = sinks
        self.resumeOffsets = resumeOffsets
    }

    /// Whether the files are open.
    var isOpen: Bool { files != nil }

    /// The files, opened on first use: started afresh, or truncated to the committed offsets.
    func open() throws -> [SinkFile] {
        if let files { return files }
        let opened = try sinks.enumerated().map { index, sink in
            let offset = resumeOffsets.map { $0[index] }
            return try SinkFile.open(sink, resumeAt: offset.flatMap { $0 >= 0 ? $0 : nil })
        }
        files = opened
        return opened
    }

    /// Appends each sink's bytes (opening the files when any has some).
    func append(_ bytes: [[UInt8]]) throws {
        guard files != nil || bytes.contains(where: { !$0.isEmpty }) else { return }
        for (file, data) in zip(try open(), bytes) where !data.isEmpty { try file.append(data) }
    }

    /// The offsets to commit: the files' own, else what was committed before (`-1` for none).
    var offsets: [Int64] {
        if let files { return files.map(\.offset) }
        return resumeOffsets ?? Array(repeating: -1, count: sinks.count)
    }

    /// Flushes the open files to stable storage.
    func synchronize() {
        for file in files ?? [] { file.synchronize() }
    }
}
