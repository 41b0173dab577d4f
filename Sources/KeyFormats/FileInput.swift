import WalletCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file read in fixed-size chunks into one buffer that is wiped before every refill and on close,
/// so key bytes from the file stay in at most one chunk of process memory at a time.
///
/// What cannot be wiped: the kernel's page cache and any copy the C library keeps (none for `read`).
/// Confined to one reader; not Sendable.
final class FileInput {
    /// The chunk size: large enough for few system calls, small enough to keep memory flat.
    static let defaultChunkSize = 64 * 1024

    let path: String
    private let descriptor: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    /// Bytes of `buffer` holding data, and the next one to hand out.
    private var filled = 0
    private var position = 0
    private var atEnd = false

    /// Opens `path` for reading.
    ///
    /// - Throws: `KeyFormatError` `.readFailed` or `.notAFile` (class `io`).
    init(path: String, chunkSize: Int = FileInput.defaultChunkSize) throws(KeyFormatError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw KeyFormatError(
                errno == ENOENT ? .fileNotFound : .readFailed, "cannot open: \(String(cString: strerror(errno)))",
                file: path)
        }
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw KeyFormatError(.notAFile, "is a directory, not a file", file: path)
        }
        descriptor = fd
        buffer = .allocate(byteCount: max(chunkSize, 16), alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        SecretBytes.wipe(buffer.baseAddress, byteCount: buffer.count)
        buffer.deallocate()
        close(descriptor)
    }

    /// The buffer's size: the most file bytes this reader holds at once.
    var capacity: Int { buffer.count }

    /// The next byte, or nil at the end of the file.
    @inline(__always)
    func next() throws(KeyFormatError) -> UInt8? {
        if position == filled {
            guard try refill() else { return nil }
        }
        let byte = buffer[position]
        position += 1
        return byte
    }

    /// Hands out the bytes from the current position up to (not including) the first comma, LF, CR or quote
    /// in the buffer, or to the buffer's end; empty when the next byte is one of those or the buffer is
    /// used up (``next()`` then refills). The bytes stay valid until the next call on this input.
    ///
    /// A CSV reader in an unquoted field takes a whole run of ordinary bytes at once with it instead of
    /// one ``next()`` call per byte.
    @inline(__always)
    func unquotedRun() -> UnsafeRawBufferPointer {
        let start = position
        var end = start
        while end < filled {
            let byte = buffer[end]
            if byte == 0x2C || byte == 0x0A || byte == 0x0D || byte == 0x22 { break }
            end += 1
        }
        position = end
        return UnsafeRawBufferPointer(rebasing: buffer[start..<end])
    }

    /// Consumes the rest of the current line, its LF included, when the buffer holds all of it and it has
    /// no quote and no CR: the line's bytes without its LF, valid until the next call on this input. Nil,
    /// with nothing consumed, otherwise (the line goes on past the buffer, or needs the CSV state machine).
    ///
    /// So a resumed run skips its finished rows with a few byte searches a row rather than the state machine.
    func plainLine() -> UnsafeRawBufferPointer? {
        guard position < filled, let base = buffer.baseAddress else { return nil }
        let start = base + position
        guard let newline = memchr(start, 0x0A, filled - position) else { return nil }
        let length = UnsafeRawPointer(newline) - UnsafeRawPointer(start)
        guard memchr(start, 0x22, length) == nil, memchr(start, 0x0D, length) == nil else { return nil }
        position += length + 1
        return UnsafeRawBufferPointer(start: start, count: length)
    }

    /// Reads the whole (small) file into secret storage, refusing more than `limit` bytes.
    ///
    /// - Throws: `.fileTooLarge` above `limit`, `.readFailed` on a read error.
    func readAll(limit: Int) throws(KeyFormatError) -> SecretBytes {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: limit + 1, alignment: 16)
        defer {
            SecretBytes.wipe(scratch.baseAddress, byteCount: scratch.count)
            scratch.deallocate()
        }
        var count = 0
        while let byte = try next() {
            guard count < limit else {
                throw KeyFormatError(.fileTooLarge, "larger than the \(limit) bytes this format allows", file: path)
            }
            scratch[count] = byte
            count += 1
        }
        return SecretBytes.copying(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
    }

    private func refill() throws(KeyFormatError) -> Bool {
        if atEnd { return false }
        SecretBytes.wipe(buffer.baseAddress, byteCount: filled)
        filled = 0
        position = 0
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw KeyFormatError(.readFailed, "read failed: \(String(cString: strerror(errno)))", file: path)
            }
            if count == 0 {
                atEnd = true
                return false
            }
            filled = count
            return true
        }
    }
}
