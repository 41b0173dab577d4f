import Foundation
import Testing

/// A scratch folder with playbooks, inputs and a walletops home, and helpers to run the built binary
/// in it (in the foreground, or in the background to lock, signal or kill it).
final class PlaybookWorkspace {
    let directory: URL
    var environment: [String: String] = [:]

    init() throws {
        directory = try makeTemporaryDirectory()
        environment["WALLETOPS_HOME"] = directory.appendingPathComponent("home").path
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var home: URL { directory.appendingPathComponent("home") }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: url(name))
    }

    func read(_ name: String) -> String {
        (try? String(contentsOf: url(name), encoding: .utf8)) ?? ""
    }

    /// A playbook `path` (its folder made) named `name`, firing on `schedule`, whose one step appends a
    /// line to `output` (an expression may name a var of `vars`, YAML lines under `vars:`): for `due`.
    func writeScheduled(_ path: String, name: String, schedule: String, appendingTo output: String, vars: String = "")
        throws
    {
        try FileManager.default.createDirectory(
            at: url(path).deletingLastPathComponent(), withIntermediateDirectories: true)
        let declared = vars.isEmpty ? "" : "vars:\n" + vars + "\n"
        try write(
            path,
            "name: \(name)\nschedule: \"\(schedule)\"\n\(declared)steps:\n"
                + "  - {id: mark, action: append, with: {path: \"\(output)\"}}\n")
    }

    /// A CSV input `name` with a header `id` and rows 1...count.
    func writeKeys(_ name: String, count: Int) throws {
        var text = "id\n"
        text.reserveCapacity(count * 7)
        for index in 1...count { text += "\(index)\n" }
        try write(name, text)
    }

    /// Runs `walletops arguments` (or another `executable`) to its end.
    func run(_ arguments: [String], environment extra: [String: String] = [:], executable: String? = nil) throws
        -> CLIResult
    {
        try BuiltBinary.run(
            arguments, environment: environment.merging(extra) { $1 }, directory: directory, executable: executable)
    }

    /// Starts `walletops arguments` in the background; its output goes to `<tag>.out` and `<tag>.err`.
    func start(_ arguments: [String], tag: String) throws -> Process {
        _ = FileManager.default.createFile(atPath: url("\(tag).out").path, contents: nil)
        _ = FileManager.default.createFile(atPath: url("\(tag).err").path, contents: nil)
        let process = Process()
        process.executableURL = try BuiltBinary.url()
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: url("\(tag).out"))
        process.standardError = try FileHandle(forWritingTo: url("\(tag).err"))
        process.currentDirectoryURL = directory
        var childEnvironment = ProcessInfo.processInfo.environment
        for (name, value) in environment { childEnvironment[name] = value }
        process.environment = childEnvironment
        try process.run()
        return process
    }

    /// Waits until `condition` holds, polling every 20 ms, for at most `seconds`.
    func wait(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    /// The lines of `name`, counted: key to occurrences.
    func lineCounts(_ name: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in read(name).split(separator: "\n") { counts[String(line), default: 0] += 1 }
        return counts
    }

    /// The JSON value of text.
    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}
