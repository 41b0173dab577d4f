import Foundation
import Testing

/// Hostile input through the built binary (issue 28): refused at its place, quickly, without a crash, and
/// one bad playbook of a `due` folder does not stop the others.
@Suite struct HostileInputEndToEndTests {
    /// A schedule-every-minute playbook whose `with:` holds `levels` nested lists.
    static func deepPlaybook(levels: Int) -> String {
        "name: deep\nschedule: \"* * * * *\"\nsteps:\n  - id: a\n    action: append\n    with:\n      path: deep.txt\n"
            + "      x: " + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "\n"
    }

    @Test func aHundredThousandLevelPlaybookIsRefusedInUnderASecond() throws {
        let space = try PlaybookWorkspace()
        try space.write("deep.yaml", Self.deepPlaybook(levels: 100_000))
        let clock = ContinuousClock()
        var validated: CLIResult?
        let took = try clock.measure { validated = try space.run(["validate", "deep.yaml"]) }
        let result = try #require(validated)
        #expect(result.status == 64, "\(result)")
        #expect(result.standardError.hasPrefix("deep.yaml:8:70: error: nested more than 64 levels deep"), "\(result)")
        #expect(result.standardError.count < 1_000, "a window of the line, not all of it")
        // The process start-up is in the figure too: the refusal itself is well under it.
        #expect(took < .seconds(1), "took \(took)")
        let run = try space.run(["run", "deep.yaml"])
        #expect(run.status == 64, "\(run)")
        #expect(run.standardError.contains("nested more than 64 levels deep"), "\(run)")
    }

    @Test func dueRunsTheGoodPlaybooksBesideADeepOne() throws {
        let space = try PlaybookWorkspace()
        try FileManager.default.createDirectory(at: space.url("books"), withIntermediateDirectories: true)
        try space.write("books/a-deep.yaml", Self.deepPlaybook(levels: 30_000))
        try space.write(
            "books/b-good.yaml",
            "name: good\nschedule: \"* * * * *\"\nsteps:\n  - {id: mark, action: append, with: {path: ticks.txt}}\n")
        let due = try space.run(["due", "books", "--now", "2026-01-01T00:04:30Z"])
        #expect(due.status == 64, "the worst code of the folder's playbooks: \(due)")
        #expect(due.standardError.contains("a-deep.yaml:8:70: error: nested more than 64 levels deep"), "\(due)")
        #expect(due.standardError.contains("'good' is due"), "\(due)")
        #expect(space.read("ticks.txt") == "-\n")
    }

    @Test func invalidUTF8IsReportedAtTheByte() throws {
        let space = try PlaybookWorkspace()
        var bytes = Array("name: x\nsteps:\n  - {id: a, action: append, with: {path: p.txt}}\n# caf".utf8)
        bytes += [0xE9, 0x0A]
        try Data(bytes).write(to: space.url("latin1.yaml"))
        let result = try space.run(["validate", "latin1.yaml"])
        #expect(result.status == 64, "\(result)")
        #expect(
            result.standardError.hasPrefix(
                "latin1.yaml:4:6: error: the playbook file is not UTF-8 text: byte 69 (0xE9) is not valid UTF-8"),
            "\(result)")
    }

    @Test func aPrivateKeyAsAClaimValueIsRefusedWithoutEchoingIt() throws {
        let key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        let space = try PlaybookWorkspace()
        for value in [key, "0x" + key] {
            let result = try space.run(["token", "issue", "--wallet", "wal_x", "--claim", "n=\(value)"])
            #expect(result.status == 64, "\(result)")
            #expect(
                result.standardError.hasPrefix(
                    "Error: the value of '--claim n=...' looks like a private key; keys are never accepted"),
                "\(result)")
            #expect(!result.standardError.contains(key) && !result.standardOutput.contains(key))
        }
    }

    /// A CSV error that ends the whole file stops the import (its rows cannot be read: aborted with exit
    /// 65, bad input data), and the reason is printed on stderr, not only in the report.
    @Test func wholeFileCSVErrorsArePrintedWhereTheOperatorLooks() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        try Data("private_key,reference\n\"\(key),a\n".utf8).write(to: URL(fileURLWithPath: world.path("open.csv")))
        let result = try world.run(
            "jobs/import-keys.yaml", ["input": world.path("open.csv"), "format": "hex-csv", "type": "ethereum"])
        #expect(result.status == 65, "\(result)")
        #expect(
            result.standardError.contains(
                "step 'import': cannot read its items: input \(world.path("open.csv")): \(world.path("open.csv")):2: "
                    + "a quoted field opened in the record starting here is never closed before the end of the file"),
            "\(result)")
        #expect(!result.standardError.contains(key) && !result.standardOutput.contains(key))
    }
}
