import Foundation
import TestSupport
import Testing

/// Outputs honour what is there: a job's output on a character device (`/dev/null`, the usual way to
/// discard a file) and on a FIFO an operator reads from are written in place, never replaced by a
/// regular file (issue 28, item 6: the round-1 writers renamed `<path>.partial` over them).
@Suite(.serialized) struct OutputInPlaceEndToEndTests {
    static func isCharacterDevice(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFCHR
    }

    static func isFIFO(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO
    }

    @Test func importOutputsOnADeviceAndAFIFOStayWhatTheyWere() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let fifo = world.path("rejects.fifo")
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        // The operator's reader: everything the run writes into the FIFO, until the run closes it.
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [fifo]
        let received = Pipe()
        reader.standardOutput = received
        try reader.run()
        #expect(Self.isCharacterDevice("/dev/null"))
        let result = try world.run(
            "jobs/import-keys.yaml",
            [
                "input": Fixtures.repositoryRoot.appendingPathComponent("examples/keys-hex.csv").path,
                "format": "hex-csv", "output": "/dev/null", "rejects": fifo,
            ])
        #expect(result.status == 1, "rejected rows exit 1: \(result)")
        reader.waitUntilExit()
        let rejects = String(decoding: received.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rejects.hasPrefix("source,reason,error_class\r\n"), "\(rejects)")
        #expect(JobsEndToEndTests.parseCSV(rejects).map { $0["source"]! } == ["4", "5", "6", "7", "8", "9"])
        #expect(Self.isCharacterDevice("/dev/null"), "/dev/null is still the device")
        #expect(Self.isFIFO(fifo), "the FIFO is still a FIFO")
        #expect(!FileManager.default.fileExists(atPath: fifo + ".partial"))
    }
}
