import WalletCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command reads bytes given on standard input (for example a key passed as `--key-file -`).
public protocol InputSource: Sendable {
    /// Reads everything up to end of input, but at most `limit` bytes.
    ///
    /// - Throws: ``InputTooLarge`` when more than `limit` bytes are available, or a ``CLIError``
    ///   with code `ioError` when reading fails.
    /// - Returns: The bytes; the caller wipes them if they are secret.
    func readAll(limit: Int) throws -> [UInt8]

    /// Reads a secret typed or piped in, at most `limit` bytes. From a terminal, `prompt` is
    /// called first and the typed characters are not echoed; otherwise it is ``readAll(limit:)``.
    func readSecret(limit: Int, prompt: (String) -> Void) throws -> [UInt8]
}

extension InputSource {
    /// Input that is never a terminal: the same as ``readAll(limit:)``.
    public func readSecret(limit: Int, prompt: (String) -> Void) throws -> [UInt8] {
        try readAll(limit: limit)
    }
}

/// Thrown when an input holds more bytes than the reader accepts.
public struct InputTooLarge: Error, Sendable {
    /// The limit that was exceeded.
    public let limit: Int
}

/// Reads from an open file descriptor (0 for standard input).
public struct FileDescriptorInput: InputSource {
    /// The descriptor read from.
    public let descriptor: Int32

    /// Reads from `descriptor`.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Standard input.
    public static let standardInput = FileDescriptorInput(descriptor: 0)

    public func readAll(limit: Int) throws -> [UInt8] {
        try BoundedReader.read(descriptor: descriptor, limit: limit, name: "standard input")
    }

    /// From a terminal: prompts, turns echo off while reading (a key typed in must not stay on
    /// the screen or in a terminal recording), and restores the terminal after.
    public func readSecret(limit: Int, prompt: (String) -> Void) throws -> [UInt8] {
        guard isatty(descriptor) == 1 else { return try readAll(limit: limit) }
        var saved = termios()
        guard tcgetattr(descriptor, &saved) == 0 else { return try readAll(limit: limit) }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        prompt("Type or paste the key, then press Enter and Ctrl-D (input is not shown): ")
        _ = tcsetattr(descriptor, TCSAFLUSH, &silent)
        defer {
            _ = tcsetattr(descriptor, TCSAFLUSH, &saved)
            prompt("\n")
        }
        return try readAll(limit: limit)
    }
}

/// Serves fixed bytes, for tests.
public struct BytesInput: InputSource {
    private let bytes: [UInt8]

    /// Serves `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func readAll(limit: Int) throws -> [UInt8] {
        guard bytes.count <= limit else { throw InputTooLarge(limit: limit) }
        return bytes
    }
}

/// Reads a descriptor into one buffer allocated up front, so secret bytes are never left behind
/// in a buffer freed by a reallocation.
enum BoundedReader {
    static func read(descriptor: Int32, limit: Int, name: String) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        var filled = 0
        while filled < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw in
                systemRead(descriptor, raw.baseAddress! + filled, raw.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                SecretBytes.wipe(&buffer)
                throw CLIError.ioError("\(name): read failed: \(reason)")
            }
            if count == 0 { break }
            filled += count
        }
        if filled > limit {
            SecretBytes.wipe(&buffer)
            throw InputTooLarge(limit: limit)
        }
        buffer.removeLast(buffer.count - filled)  // shrinks in place, keeps the allocation
        return buffer
    }
}

/// `read(2)`, named apart from `BoundedReader.read`.
private func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, bytes, count)
}
