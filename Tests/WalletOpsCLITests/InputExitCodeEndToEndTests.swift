import Foundation
import TestSupport
import Testing

/// The exit codes of docs/cli.md for a run whose input is at fault, through the real binary: 66 for an
/// input that is not there, 65 for bad data (a CSV header without its column), 74 for one that cannot be
/// read as the file it should be; the reason on standard error, and no wallet made.
@Suite struct InputExitCodeEndToEndTests {
    @Test func theImportsInputProblemsExitWithTheirCodes() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        try Data("foo,bar\n1,2\n".utf8).write(to: URL(fileURLWithPath: world.path("bad-header.csv")))
        try FileManager.default.createDirectory(atPath: world.path("a-folder.csv"), withIntermediateDirectories: true)
        let cases: [(vars: [String: String], code: Int32, says: String)] = [
            (["input": world.path("missing.csv"), "format": "hex-csv"], 66, "No such file or directory"),
            (["input": world.path("no-such-dir"), "format": "keystore-dir", "password_env": "P"], 66, "no-such-dir"),
            (["input": world.path("bad-header.csv"), "format": "hex-csv"], 65, "the header has no private_key column"),
            (["input": world.path("a-folder.csv"), "format": "hex-csv"], 74, "a-folder.csv"),
        ]
        for (vars, code, says) in cases {
            let result = try world.run("jobs/import-keys.yaml", vars)
            #expect(result.status == code, "\(vars): \(result)")
            #expect(result.standardError.contains(says), "\(result.standardError)")
        }
        let list = try BuiltBinary.run(["wallet", "list", "--home", world.home.path])
        #expect(list.status == 0 && !list.standardOutput.contains("0x"), "\(list)")
    }

    @Test func anExportsColumnsAreMappedAndTheOnesNotReadNamed() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        try Data("privkey,label,notes\n\(key),treasury,old hot wallet\n".utf8).write(
            to: URL(fileURLWithPath: world.path("export.csv")))
        let unmapped = try world.run("jobs/import-keys.yaml", ["input": world.path("export.csv"), "format": "hex-csv"])
        #expect(unmapped.status == 65, "no private_key column: \(unmapped)")
        let mapped = try world.run(
            "jobs/import-keys.yaml",
            [
                "input": world.path("export.csv"), "format": "hex-csv",
                "columns": "private_key=privkey,reference=label",
                "output": world.path("imported.csv"),
            ])
        #expect(mapped.status == 0, "\(mapped)")
        #expect(
            mapped.standardError.contains("warning: input \(world.path("export.csv")): column notes not read"),
            "\(mapped.standardError)")
        let imported = (try? String(contentsOfFile: world.path("imported.csv"), encoding: .utf8)) ?? ""
        #expect(imported.contains(",treasury,"), "the reference came from the label column: \(imported)")
        #expect(!mapped.standardError.contains(key) && !imported.contains(key))
        let bad = try world.run(
            "jobs/import-keys.yaml",
            ["input": world.path("export.csv"), "format": "hex-csv", "columns": "secret=privkey"])
        #expect(bad.status == 64 && bad.standardError.contains("columns 'secret=privkey'"), "\(bad)")
    }

    @Test func aPlaybookInputThatIsNotThereExits66AndBadData65() throws {
        let space = try PlaybookWorkspace()
        try space.write(
            "each.yaml",
            """
            name: each
            vars:
              file: {type: path, required: true}
            inputs:
              rows: {csv: "${{ vars.file }}", columns: [id]}
            steps:
              - id: s
                action: noop
                for_each: rows
            """)
        try space.write("wrong.csv", "name\nx\n")
        let missing = try space.run(["run", "each.yaml", "--var", "file=absent.csv"])
        #expect(missing.status == 66, "\(missing)")
        #expect(missing.standardError.contains("absent.csv"), "\(missing.standardError)")
        let wrong = try space.run(["run", "each.yaml", "--var", "file=wrong.csv", "--fresh"])
        #expect(wrong.status == 65, "\(wrong)")
    }
}
