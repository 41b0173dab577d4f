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
        var rows: [[String]] = []
        var rejectRows: [[String]] = []
        for (row, outcome) in zip(batch.rows, outcomes) {
            switch outcome {
            case .imported(let wallet):
                rows.append([row.source, row.reference, wallet.id, wallet.type, wallet.address, wallet.keyOrigin])
            case .rejected(let reject):
                rejectRows.append([row.source, reject.reason, reject.errorClass])
            }
        }
        try Self.append(outputHandle, rows, path: output)
        try Self.append(rejectsHandle, rejectRows, path: rejects)
        imported += rows.count
        rejected += rejectRows.count
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
        guard !rows.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rows.count * 128)
        for row in rows {
            for (index, field) in row.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                appendField(field, to: &bytes)
            }
            bytes.append(contentsOf: [0x0D, 0x0A])
        }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw JobsError(.invalidInput, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// `field` as RFC 4180 (quoted when it holds a comma, a quote or a line break), scanning UTF-8 bytes
    /// rather than characters: the writer runs once per row.
    static func appendField(_ field: String, to bytes: inout [UInt8]) {
        let utf8 = field.utf8
        guard utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else {
            bytes.append(contentsOf: utf8)
            return
        }
        bytes.append(0x22)
        for byte in utf8 {
            if byte == 0x22 { bytes.append(0x22) }
            bytes.append(byte)
        }
        bytes.append(0x22)
    }
}
