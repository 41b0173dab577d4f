import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes an import's `output` and `rejects` in source order as batches settle, to `<file>.partial`
/// files renamed over the real names when the run completes.
///
/// A run (first or resumed) truncates the `.partial` files and rewrites every row, so each row appears
/// once, and a reader never sees a half-written `output`. Rows go out one batch at a time (one write
/// each), so the `.partial` files show the run's progress. Confined to the task that runs the import.
final class ImportOutputWriter {
    /// The final paths.
    let output: String
    let rejects: String
    private let outputHandle: FileHandle
    private let rejectsHandle: FileHandle
    /// Rows written so far.
    private(set) var imported = 0
    private(set) var rejected = 0

    /// `<path>.partial`.
    static func partialPath(_ path: String) -> String { path + ".partial" }

    /// Creates (truncates) both `.partial` files and writes their headers.
    ///
    /// - Throws: `JobsError` `.invalidInput` when a file cannot be created.
    init(output: String, rejects: String) throws {
        self.output = output
        self.rejects = rejects
        outputHandle = try Self.create(Self.partialPath(output))
        rejectsHandle = try Self.create(Self.partialPath(rejects))
        try Self.append(outputHandle, [ImportKeysAction.outputHeader], path: output)
        try Self.append(rejectsHandle, [ImportKeysAction.rejectsHeader], path: rejects)
    }

    deinit {
        try? outputHandle.close()
        try? rejectsHandle.close()
    }

    /// Appends the rows of a settled batch (`outcomes` by row).
    func write(_ batch: ImportBatch, _ outcomes: [ImportRowOutcome]) throws {
        // Rows go straight into one byte buffer per file: no array of cells per row.
        var rows: [UInt8] = []
        rows.reserveCapacity(batch.rows.count * 128)
        var rejectRows: [UInt8] = []
        var importedCount = 0
        var rejectedCount = 0
        for (row, outcome) in zip(batch.rows, outcomes) {
            switch outcome {
            case .imported(let wallet):
                Self.appendRow(
                    [row.source, row.reference, wallet.id, wallet.type, wallet.address, wallet.keyOrigin], to: &rows)
                importedCount += 1
            case .rejected(let reject):
                Self.appendRow([row.source, reject.reason, reject.errorClass], to: &rejectRows)
                rejectedCount += 1
            }
        }
        try Self.write(outputHandle, rows, path: output)
        try Self.write(rejectsHandle, rejectRows, path: rejects)
        imported += importedCount
        rejected += rejectedCount
    }

    /// Flushes both files to disk and renames them over `output` and `rejects`.
    func finish() throws {
        for (handle, path) in [(outputHandle, output), (rejectsHandle, rejects)] {
            do {
                try handle.synchronize()
                try handle.close()
                // rename(2) replaces the target atomically: a reader sees the old file or the new one.
                guard rename(Self.partialPath(path), path) == 0 else {
                    throw JobsError(
                        .invalidInput, "cannot rename \(Self.partialPath(path)): \(String(cString: strerror(errno)))")
                }
            } catch let error as JobsError {
                throw error
            } catch {
                throw JobsError(.invalidInput, "cannot write \(path): \(error.localizedDescription)")
            }
        }
    }

    private static func create(_ path: String) throws -> FileHandle {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            return try FileHandle(forWritingTo: url)
        } catch {
            throw JobsError(.invalidInput, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    private static func append(_ handle: FileHandle, _ rows: [[String]], path: String) throws {
        var bytes: [UInt8] = []
        for row in rows { appendRow(row, to: &bytes) }
        try write(handle, bytes, path: path)
    }

    /// `fields` as one CSV record ending in CRLF; inlined, so the optimizer may keep a caller's array
    /// literal off the heap.
    @inline(__always)
    private static func appendRow(_ fields: [String], to bytes: inout [UInt8]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            appendField(field, to: &bytes)
        }
        bytes.append(0x0D)
        bytes.append(0x0A)
    }

    private static func write(_ handle: FileHandle, _ bytes: [UInt8], path: String) throws {
        guard !bytes.isEmpty else { return }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw JobsError(.invalidInput, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// `field` as RFC 4180 (quoted when it holds a comma, a quote or a line break), scanning UTF-8 bytes
    /// rather than characters: the writer runs once per row.
    static func appendField(_ field: String, to bytes: inout [UInt8]) {
        var field = field
        let plain = field.withUTF8 { utf8 in
            // One pass over contiguous UTF-8: the common field needs no quoting and is copied whole.
            for byte in utf8 where byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        guard !plain else { return }
        let utf8 = field.utf8
        bytes.append(0x22)
        for byte in utf8 {
            if byte == 0x22 { bytes.append(0x22) }
            bytes.append(byte)
        }
        bytes.append(0x22)
    }
}
