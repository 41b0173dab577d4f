import Foundation

/// Reads a file (or a byte array, for tests) in fixed-size chunks so memory stays flat.
final class ByteChunks {
    private let handle: FileHandle?
    private var bytes: [UInt8]
    private var offset = 0
    let chunkSize: Int
    let name: String

    init(url: URL, chunkSize: Int) throws(InputError) {
        name = url.relativePath
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            let exists = FileManager.default.fileExists(atPath: url.path)
            throw InputError(
                file: url.relativePath, message: exists ? "cannot open the file" : "no such file",
                problem: exists ? .unreadable : .missing)
        }
        bytes = []
        self.chunkSize = max(1, chunkSize)
    }

    init(bytes: [UInt8], name: String, chunkSize: Int) {
        handle = nil
        self.bytes = bytes
        self.name = name
        self.chunkSize = max(1, chunkSize)
    }

    deinit { try? handle?.close() }

    private var started = false

    /// The next chunk, or `nil` at the end; a UTF-8 byte order mark at the start of the file is dropped.
    func next() throws(InputError) -> [UInt8]? {
        guard !started else { return try read() }
        started = true
        // Gather at least three bytes so a BOM split across reads is still seen.
        var first: [UInt8] = []
        while first.count < 3, let more = try read() { first += more }
        if first.starts(with: [0xEF, 0xBB, 0xBF]) { first.removeFirst(3) }
        return first.isEmpty ? try read() : first
    }

    private func read() throws(InputError) -> [UInt8]? {
        if let handle {
            do {
                guard let data = try handle.read(upToCount: chunkSize), !data.isEmpty else { return nil }
                return [UInt8](data)
            } catch {
                throw InputError(file: name, message: "read failed")
            }
        }
        guard offset < bytes.count else { return nil }
        let end = min(bytes.count, offset + chunkSize)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}
