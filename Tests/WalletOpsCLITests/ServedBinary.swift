import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `walletops core serve` running as a child process, for end-to-end tests over loopback.
final class ServedBinary {
    let process = Process()
    let output = Pipe()
    let errorFile: URL
    /// The URL printed on the `listening on ...` line.
    private(set) var baseURL: URL!

    /// Starts `walletops core serve --home <home> --listen <listen>` and waits for its listening line.
    init(home: URL, listen: String) throws {
        errorFile = home.deletingLastPathComponent().appendingPathComponent("serve-\(UUID().uuidString).err")
        try Data().write(to: errorFile)
        process.executableURL = try BuiltBinary.url()
        process.arguments = ["core", "serve", "--home", home.path, "--listen", listen]
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "WALLETOPS_HOME")
        process.environment = environment
        try process.run()
        var line: [UInt8] = []
        let handle = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty {
                process.waitUntilExit()
                throw TestFailure("core serve exited (\(process.terminationStatus)) before listening: \(standardError)")
            }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("listening on "), let url = URL(string: String(text.dropFirst("listening on ".count)))
        else {
            process.terminate()
            throw TestFailure("unexpected first line from core serve: \(text)")
        }
        baseURL = url
    }

    var port: Int { baseURL.port ?? 0 }

    var standardError: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits for the exit status.
    func stop(signal number: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, number) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: errorFile)
    }

    /// A loopback TCP port that was free a moment ago (bound to port 0, read back, closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw TestFailure("bind() failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw TestFailure("getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
