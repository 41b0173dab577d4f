import Foundation

/// A child process whose standard input, output and error are pipes: a test writes to it while it runs,
/// then closes its input and reads what it printed.
public struct PipedProcess {
    /// What a finished child left: its exit status and everything it printed.
    public struct Finished: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    public let process: Process
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()

    /// Starts `executable` with `arguments` (and `environment`, else this process's).
    public init(_ executable: URL, arguments: [String], environment: [String: String]? = nil) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Writes `text` to the child's standard input.
    public func write(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Closes the child's input, reads its output and error to their ends (the error on another thread,
    /// so a child that fills one pipe while the other is read does not stall) and waits for its exit.
    public func finish() throws -> Finished {
        try input.fileHandleForWriting.close()
        let errorText = ErrorText()
        let reader = Thread { [errors] in errorText.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Finished(
            status: process.terminationStatus, standardOutput: String(decoding: out, as: UTF8.self),
            standardError: String(decoding: errorText.wait(), as: UTF8.self))
    }
}

/// The error stream's bytes, handed from the reading thread once it reached the end.
private final class ErrorText: @unchecked Sendable {  // guarded by `done`: set once, read after the signal
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    func set(_ data: Data) {
        self.data = data
        done.signal()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
