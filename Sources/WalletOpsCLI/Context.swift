import Foundation

/// What a command may touch of the outside world: its output and input streams, the environment,
/// and the current directory. Injected so tests run commands in-process and capture their output.
public struct Context: Sendable {
    /// Normal output (results, help).
    public var standardOutput: any OutputSink
    /// Errors and diagnostics.
    public var standardError: any OutputSink
    /// Standard input, for data passed as `-`.
    public var standardInput: any InputSource
    /// The environment variables.
    public var environment: [String: String]
    /// The directory relative paths are resolved against.
    public var currentDirectory: URL
    /// The tuning mechanisms switched off (`WALLETOPS_TUNING_OFF`, parsed once by ``WalletOps/main(_:)``):
    /// every one on unless set.
    public var tuning = TuningSwitches()

    /// A context with the given streams and environment.
    public init(
        standardOutput: any OutputSink, standardError: any OutputSink,
        standardInput: any InputSource = BytesInput([]),
        environment: [String: String] = [:],
        currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardInput = standardInput
        self.environment = environment
        self.currentDirectory = currentDirectory
    }

    /// The context of this process: file descriptors 0, 1, 2, its environment and working directory.
    public static func process() -> Context {
        Context(
            standardOutput: FileDescriptorOutput.standardOutput,
            standardError: FileDescriptorOutput.standardError,
            standardInput: FileDescriptorInput.standardInput,
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
    }

    /// `path` as a file URL, relative paths resolved against ``currentDirectory``.
    public func fileURL(_ path: String) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL }
        return currentDirectory.appendingPathComponent(path).standardizedFileURL
    }
}
