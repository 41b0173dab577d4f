import Foundation
import Testing

extension JobsEndToEndTests.JobsWorld {
    /// One round of a kill test: starts `walletops` with `arguments` (a `run` that writes `output`) in the
    /// scratch folder, polls the run's own progress, `rows(<output>.partial)` (or `rows(output)` when
    /// `inPlace`: a chunk step's sink), every `poll` until it reaches `target`, then SIGKILLs the process.
    ///
    /// Requires that the kill landed mid-run (the run neither ended nor stalled for ten minutes first),
    /// and expects that the process died of the signal and, unless `inPlace`, that `output` does not exist
    /// yet.
    /// - Returns: the progress seen when the kill was sent.
    @discardableResult
    func killMidRun(
        _ arguments: [String], round: Int, output: String, target: Int, poll: Duration, inPlace: Bool = false,
        rows: (String) -> Int
    ) throws -> Int {
        let partial = inPlace ? output : output + ".partial"
        if !inPlace { try? FileManager.default.removeItem(atPath: partial) }
        let process = Process()
        process.executableURL = try BuiltBinary.url()
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.currentDirectoryURL = scratch
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var seen = 0
        let deadline = Date().addingTimeInterval(600)
        while process.isRunning && Date() < deadline {
            seen = rows(partial)
            if seen >= target { break }
            usleep(useconds_t(poll / .microseconds(1)))  // a poll interval, not a wait for an outcome
        }
        let killedMidRun = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try #require(
            killedMidRun && seen >= target,
            "round \(round): the run ended (or stalled) before the kill at \(target) rows could land (\(seen) written)")
        #expect(process.terminationReason == .uncaughtSignal)
        if !inPlace {
            #expect(!FileManager.default.fileExists(atPath: output), "round \(round): no output before the end")
        }
        print("round \(round): killed with \(seen) rows in \(partial)")
        return seen
    }
}
