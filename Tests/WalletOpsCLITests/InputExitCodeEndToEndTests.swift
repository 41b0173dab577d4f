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
