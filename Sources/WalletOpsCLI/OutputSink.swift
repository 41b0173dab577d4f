import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `write(2)`, named apart from `OutputSink.write(_:)`.
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}

/// Where a command writes text: standard output or error, or a buffer in tests.
public protocol OutputSink: Sendable {
    /// Writes `text` as is (no newline added).
    func write(_ text: String)
}

extension OutputSink {
    /// Writes `text` followed by a newline.
    public func writeLine(_ text: String = "") { write(text + "\n") }
}

/// Writes to a file descriptor (1 for standard output, 2 for standard error), unbuffered.
public struct FileDescriptorOutput: OutputSink {
    /// The descriptor written to.
    public let descriptor: Int32

    /// Writes to `descriptor`.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Standard output.
    public static let standardOutput = FileDescriptorOutput(descriptor: 1)
    /// Standard error.
    public static let standardError = FileDescriptorOutput(descriptor: 2)

    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // a closed pipe: nothing useful left to do with the text
                }
                offset += written
            }
        }
    }
}

/// Collects everything written, for tests.
public final class CapturedOutput: OutputSink {
    private let buffer = Mutex("")

    /// An empty buffer.
    public init() {}

    public func write(_ text: String) {
        buffer.withLock { $0 += text }
    }

    /// Everything written so far.
    public var text: String { buffer.withLock { $0 } }
}
