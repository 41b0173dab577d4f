import Foundation

/// A streaming JSON Lines reader: one JSON value per line, blank lines skipped, errors with line numbers.
/// See <https://jsonlines.org>.
public final class JSONLReader {
    /// One line's value.
    public struct Record: Sendable, Hashable {
        /// The 1-based line number.
        public var line: Int
        /// The parsed value.
        public var value: TemplateValue
    }

    private let chunks: ByteChunks
    private var pending: [UInt8] = []
    private var lines: [(Int, [UInt8])] = []
    private var lineIndex = 0
    private var line = 0
    private var finished = false
    /// The longest line accepted, so a file without newlines cannot exhaust memory.
    public static let maxLineBytes = 16 << 20

    /// Opens a JSON Lines file.
    public convenience init(url: URL, chunkSize: Int = 65_536) throws(InputError) {
        self.init(chunks: try ByteChunks(url: url, chunkSize: chunkSize))
    }

    /// Reads JSON Lines from bytes in memory.
    public convenience init(bytes: [UInt8], name: String = "<memory>", chunkSize: Int = 65_536) {
        self.init(chunks: ByteChunks(bytes: bytes, name: name, chunkSize: chunkSize))
    }

    private init(chunks: ByteChunks) { self.chunks = chunks }

    /// The next record, or `nil` at the end.
    ///
    /// - Throws: ``InputError`` naming the line for invalid JSON or UTF-8.
    public func next() throws(InputError) -> Record? {
        while true {
            while lineIndex < lines.count {
                let (number, bytes) = lines[lineIndex]
                lineIndex += 1
                var text = bytes
                if text.last == UInt8(ascii: "\r") { text.removeLast() }
                guard let string = String(validating: text, as: UTF8.self) else {
                    throw InputError(file: chunks.name, line: number, message: "the line is not valid UTF-8")
                }
                if string.allSatisfy(\.isWhitespace) { continue }
                do {
                    return Record(line: number, value: try TemplateValue(jsonText: string))
                } catch {
                    throw InputError(file: chunks.name, line: number, message: "invalid JSON")
                }
            }
            lines.removeAll(keepingCapacity: true)
            lineIndex = 0
            if finished { return nil }
            guard let chunk = try chunks.next() else {
                finished = true
                if !pending.isEmpty {
                    line += 1
                    lines.append((line, pending))
                    pending = []
                }
                continue
            }
            var start = 0
            for (i, byte) in chunk.enumerated() where byte == UInt8(ascii: "\n") {
                pending += chunk[start..<i]
                line += 1
                lines.append((line, pending))
                pending = []
                start = i + 1
            }
            pending += chunk[start...]
            if pending.count > Self.maxLineBytes {
                throw InputError(
                    file: chunks.name, line: line + 1, message: "line longer than \(Self.maxLineBytes) bytes")
            }
        }
    }

    /// Reads every remaining record.
    public func readAll() throws(InputError) -> [Record] {
        var out: [Record] = []
        while let record = try next() { out.append(record) }
        return out
    }
}

@available(*, unavailable, message: "a reader holds a file position; use it from one task")
extension JSONLReader: Sendable {}
