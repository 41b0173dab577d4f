import Foundation
import TestSupport
import Testing

/// Issue 27's phrase import at its size: 200 phrases of fixed entropy with 5 accounts each, SIGKILLed twice
/// mid-run and resumed, imports 1,000 wallets exactly once with the addresses eth-account derives; the
/// reconcile job, SIGKILLed once and resumed, then finds all 1,000 present and none missing; no phrase or
/// key is left in the home, the outputs or the commands' output.
@Suite(.serialized) struct PhraseKillResumeTests {
    @Test(.timeLimit(.minutes(10))) func phrasesKilledTwiceAndResumedImportEachAccountOnce() throws {
        let phrases = 200
        let accounts = 5
        let cases = try ReconcileEndToEndTests.phrases(phrases, accounts: accounts)
        #expect(cases.count == phrases)
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let lines = cases.enumerated().map { "\($1.phrase),\(accounts),p\($0 + 1)" }
        try Data(("mnemonic,count,reference\n" + lines.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: world.path("phrases.csv")))
        let arguments = [
            "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/import-keys.yaml").path, "--home",
            world.home.path, "--var", "input=\(world.path("phrases.csv"))", "--var", "format=mnemonic-csv", "--var",
            "type=ethereum", "--var", "output=\(world.path("out.csv"))", "--var",
            "rejects=\(world.path("rejects.csv"))", "--var", "core=", "--var", "batch=10", "--var", "parallel=2",
        ]
        let total = phrases * accounts
        for (round, target) in [(1, total / 5), (2, total * 3 / 5)] {
            try world.killMidRun(
                arguments, round: round, output: world.path("out.csv"), target: target, poll: .milliseconds(2),
                inPlace: true, rows: JobsKillResumeTests.dataRows)
        }
        let final = try BuiltBinary.run(arguments, directory: world.scratch)
        #expect(final.status == 0, "\(final)")
        let rows = JobsEndToEndTests.parseCSV(world.read("out.csv"))
        #expect(rows.count == total)
        #expect(JobsEndToEndTests.parseCSV(world.read("rejects.csv")).isEmpty)
        var expected: [String: String] = [:]
        for (row, item) in cases.enumerated() {
            for (index, address) in item.addresses.enumerated() {
                expected["\(row + 1):\(index)"] = address
            }
        }
        #expect(Set(rows.map { $0["source"]! }).count == total, "each account once")
        #expect(rows.allSatisfy { expected[$0["source"]!] == $0["address"] }, "eth-account's address for each")
        #expect(rows.first?["reference"] == "p1-0" && rows.last?["reference"] == "p\(phrases)-\(accounts - 1)")
        let list = try BuiltBinary.run(["wallet", "list", "--home", world.home.path])
        #expect(list.standardOutput.split(separator: "\n").filter { $0.contains("wal_") }.count == total)

        try FileManager.default.createDirectory(atPath: world.path("out"), withIntermediateDirectories: true)
        let reconcile = [
            "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/reconcile.yaml").path, "--home",
            world.home.path, "--var", "input=\(world.path("phrases.csv"))", "--var", "format=mnemonic-csv", "--var",
            "type=ethereum", "--var", "output=\(world.path("out/reconcile.csv"))", "--var",
            "summary=\(world.path("out/summary.json"))", "--var", "rejects=\(world.path("out/reconcile-rejects.csv"))",
            "--var", "core=", "--var", "batch=10", "--var", "parallel=2",
        ]
        try world.killMidRun(
            reconcile, round: 3, output: world.path("out/reconcile.csv"), target: total / 4, poll: .milliseconds(2),
            inPlace: true, rows: JobsKillResumeTests.dataRows)
        let reconciled = try BuiltBinary.run(reconcile, directory: world.scratch)
        #expect(reconciled.status == 0, "\(reconciled)")
        let matched = JobsEndToEndTests.parseCSV(world.read("out/reconcile.csv"))
        #expect(matched.count == total && Set(matched.map { $0["source"]! }).count == total, "each row once")
        #expect(matched.allSatisfy { $0["status"] == "present" }, "1,000 present, 0 missing")
        let walletOf = Dictionary(uniqueKeysWithValues: rows.map { ($0["source"]!, $0["wallet_id"]!) })
        #expect(
            matched.allSatisfy {
                walletOf[$0["source"]!] == $0["wallet_id"] && expected[$0["source"]!] == $0["address"]
            })
        let summary =
            try JSONSerialization.jsonObject(with: Data(world.read("out/summary.json").utf8)) as? [String: Int]
        #expect(
            summary?["present"] == total && summary?["missing"] == 0 && summary?["unexplained"] == 0,
            "\(summary ?? [:])")
        // Keys (hex) and phrases (as passwords: their bytes) never reached the home or the outputs.
        let keys = cases.flatMap(\.keys)
        let words = cases.map { $0.phrase.split(separator: " ").prefix(4).joined(separator: " ") }
        try JobsEndToEndTests.expectNoSecrets(
            keys: Array(keys.prefix(50)) + Array(keys.suffix(50)), passwords: words,
            in: [world.home, URL(fileURLWithPath: world.path("out"))],
            outputs: [final, reconciled])
    }
}
