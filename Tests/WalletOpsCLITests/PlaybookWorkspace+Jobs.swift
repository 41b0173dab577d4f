import Foundation
import TestSupport
import Testing

extension PlaybookWorkspace {
    /// A workspace whose home has a core, signed in as ops@example.com (for `lifetime` seconds), to run
    /// the shipped playbooks in.
    static func signedIn(lifetime: Int? = nil) throws -> PlaybookWorkspace {
        let space = try PlaybookWorkspace()
        let initialized = try space.run(["core", "init"])
        try #require(initialized.status == 0, "\(initialized)")
        try space.signIn(lifetime: lifetime)
        return space
    }

    /// `walletops login --dev --email ops@example.com [--lifetime N]`.
    func signIn(lifetime: Int? = nil) throws {
        let login = try run(
            ["login", "--dev", "--email", "ops@example.com"] + (lifetime.map { ["--lifetime", "\($0)"] } ?? []))
        try #require(login.status == 0, "\(login)")
    }

    /// An import CSV of `count` distinct valid Ethereum keys: the scalars `first` to `first + count - 1`.
    func writeImportKeys(_ name: String, count: Int, from first: Int = 1) throws {
        let keys = (first..<(first + count)).map { String(format: "%064x", $0) }
        try write(name, "private_key\n" + keys.joined(separator: "\n") + "\n")
    }

    /// `walletops run <repo>/jobs/<playbook>.yaml` with `vars` (in the order given) and `extra` arguments.
    static func shipped(_ playbook: String, _ vars: KeyValuePairs<String, String>, _ extra: [String] = []) -> [String] {
        ["run", Fixtures.repositoryRoot.appendingPathComponent("jobs/\(playbook).yaml").path]
            + vars.flatMap { ["--var", "\($0.key)=\($0.value)"] } + extra
    }

    /// The import of the CSV `input` into `output` (rejects beside it), through jobs/import-keys.yaml.
    static func importCommand(input: String, output: String, _ extra: KeyValuePairs<String, String> = [:])
        -> [String]
    {
        shipped("import-keys", ["input": input, "format": "hex-csv", "output": output, "rejects": output + ".rejects"])
            + extra.flatMap { ["--var", "\($0.key)=\($0.value)"] }
    }

    /// The data rows of the CSV `name`.
    func csvRows(_ name: String) -> [[String: String]] { JobsEndToEndTests.parseCSV(read(name)) }
}
