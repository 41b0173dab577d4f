import Foundation
import Testing

/// `examples/sdk-tour` runs the whole seed page against an embedded core and prints each step.
@Suite struct SDKTourTests {
    @Test func theTourRunsToTheEnd() throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let binary = directory.appendingPathComponent("sdk-tour")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build sdk-tour first: \(binary.path)")
        let process = Process()
        process.executableURL = binary
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        for line in [
            "Restored wallet:", "Selected:", "Created:", "Created Solana:", "expiry kept: true", "Imported:",
            "role member", "Tour Bot https://bot.example.com", "usage: [\"nativeTransfer: used 0\"]",
            "grants after revoking the first non-caller grant: 1", "protected call after sign-out: sessionMissing",
            "Tour complete.",
        ] {
            #expect(text.contains(line), "missing: \(line)")
        }
    }
}
