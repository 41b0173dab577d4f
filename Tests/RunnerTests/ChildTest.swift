import Foundation

/// This test binary started again to run one test in a process of its own, for tests that kill a run
/// mid-way (SIGKILL, SIGSTOP) and look at what it left behind.
enum ChildTest {
    /// Starts the test `filter` with `variable` set to `value` (the child test runs only where it is
    /// set), its standard output and error written to the file `log`.
    static func start(_ filter: String, setting variable: String, to value: String, log: String) throws -> Process {
        let child = Process()
        child.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        child.environment = ProcessInfo.processInfo.environment.merging([variable: value]) { $1 }
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        child.standardOutput = output
        child.standardError = output
        try child.run()
        return child
    }
}
