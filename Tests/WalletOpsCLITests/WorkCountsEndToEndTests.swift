import Foundation
import TestSupport
import Testing

/// The run report's per-step work counts (docs/engine.md "Work counts") for the jobs run once and again
/// from scratch: what was sent, and what the core found done already.
@Suite(.serialized) struct WorkCountsEndToEndTests {
    @Test func createCountsRequestsAndWhatTheCoreHadAlready() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let vars = ["count": "30", "batch": "10", "parallel": "2", "output": world.path("w.csv")]
        let first = try world.run("jobs/create-wallets.yaml", vars)
        #expect(first.status == 0, "\(first)")
        let made = try RunReportFile(of: first)
        #expect(made.step["work"] as? [String: Int] == ["requests": 3, "sent": 30, "created": 30, "found": 0])
        // A fresh run over the same references: every one sent again, none made again.
        let again = try world.run("jobs/create-wallets.yaml", vars)
        #expect(again.status == 0, "\(again)")
        let found = try RunReportFile(of: again)
        #expect(found.step["work"] as? [String: Int] == ["requests": 3, "sent": 30, "created": 0, "found": 30])
        let markdown = try String(
            contentsOfFile: found.path.replacingOccurrences(of: ".json", with: ".md"), encoding: .utf8)
        #expect(markdown.contains("Work of `create` in this invocation: created 0, found 30, requests 3, sent 30."))
    }

    @Test func importCountsOnlyTheKeysItSent() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        // 9 rows: 3 imported, 5 refused before anything is sent, 1 copy of an earlier key in the same chunk.
        let vars = [
            "input": Fixtures.repositoryRoot.appendingPathComponent("examples/keys-hex.csv").path,
            "format": "hex-csv", "output": world.path("out.csv"), "rejects": world.path("rej.csv"),
        ]
        let first = try world.run("jobs/import-keys.yaml", vars)
        #expect(first.status == 1, "\(first)")
        let report = try RunReportFile(of: first)
        #expect(report.count("succeeded") == 3 && report.count("rejected") == 6)
        #expect(report.step["work"] as? [String: Int] == ["requests": 1, "sent": 3, "imported": 3, "found": 0])
        let again = try world.run("jobs/import-keys.yaml", vars)
        #expect(
            try RunReportFile(of: again).step["work"] as? [String: Int] == [
                "requests": 1, "sent": 3, "imported": 0, "found": 3,
            ])
    }
}
