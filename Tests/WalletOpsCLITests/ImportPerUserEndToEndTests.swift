import Foundation
import HomeLayout
import Jobs
import OMSCore
import OMSEmbedded
import OMSProtocol
import SQLiteKit
import TestSupport
import Testing

/// The per-user mode of `jobs/import-keys.yaml` through the built binary: an app issuer made with
/// `openssl`, trusted with `core trust-issuer --jwks-from-pem`, and each row's key imported into its
/// `subject`'s own account, on the embedded core and on `core serve`.
@Suite(.serialized) struct ImportPerUserEndToEndTests {
    static let issuer = "https://app.example"

    /// A directory outside the scanned world for what holds secrets on purpose (the PEM, the input).
    final class SecretsDirectory {
        let url: URL
        init() throws { url = try makeTemporaryDirectory() }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    }

    /// A new EC P-256 PKCS#8 PEM at `path`, trusted by the world's project under kid `app-1`.
    static func makeTrustedIssuer(_ world: JobsEndToEndTests.JobsWorld, pem: String) throws {
        try TrustIssuerFromPEMTests.openssl([
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", pem,
        ])
        let trusted = try BuiltBinary.run([
            "core", "trust-issuer", "--home", world.home.path, "--issuer", issuer, "--audience", "app-users",
            "--jwks-from-pem", pem, "--kid", "app-1",
        ])
        #expect(trusted.status == 0, "\(trusted)")
    }

    /// The PEM's base64 lines (what must never be copied anywhere).
    static func pemLines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.hasPrefix("-----") }
    }

    /// A random secp256k1 private key, hex (below the order: its top byte below 0xff).
    static func randomKey() -> String {
        var bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
        bytes[0] = UInt8.random(in: 1...0xfe)
        return Hex.encode(bytes)
    }

    /// Read-only rows of the core's database.
    static func query(_ world: JobsEndToEndTests.JobsWorld, _ sql: String) throws -> [[SQLiteValue]] {
        var configuration = SQLiteDatabase.Configuration.default
        configuration.flags = .readOnly
        let db = try SQLiteDatabase(path: WalletHome(url: world.home).databaseURL.path, configuration: configuration)
        return try db.rows(sql)
    }

    static func text(_ value: SQLiteValue) -> String {
        if case .text(let text) = value { return text }
        if case .integer(let number) = value { return String(number) }
        return "?"
    }

    @Test(arguments: [false, true]) func eachRowLandsInItsSubjectsAccount(served: Bool) async throws {
        let world = try JobsEndToEndTests.JobsWorld(served: served)
        let secrets = try SecretsDirectory()
        let pem = secrets.path("app-issuer.pem")
        try Self.makeTrustedIssuer(world, pem: pem)
        let keys = (0..<8).map { _ in Self.randomKey() }
        // batch 2, parallel 1: row 5 repeats row 1's key for another subject after row 1's chunk was
        // answered (the core's unique address, held by alice's account: 7313), row 8 repeats row 7's in its
        // own chunk (the window); row 9 is bad, row 10 has no subject. (With chunks in flight together row 5
        // may meet row 1's key in the window instead: a duplicate either way.)
        let rows: [(key: String, subject: String, reference: String)] = [
            (keys[0], "alice", "a-1"), (keys[1], "bob", "b-1"), (keys[2], "carol", "c-1"), (keys[3], "alice", "a-2"),
            (keys[0], "bob", "b-dup"), (keys[4], "carol", "c-2"), (keys[5], "bob", "b-2"),
            (keys[5], "alice", "a-dup"), ("0xzz", "carol", "c-bad"), (keys[6], "", "nobody"),
            (keys[7], "carol", "c-3"),
        ]
        let input = secrets.path("users.csv")
        let csv = "private_key,subject,reference\n" + rows.map { "\($0.key),\($0.subject),\($0.reference)\n" }.joined()
        try Data(csv.utf8).write(to: URL(fileURLWithPath: input))
        var vars = [
            "input": input, "format": "hex-csv", "output": world.path("imported.csv"),
            "rejects": world.path("rejects.csv"), "batch": "2", "parallel": "1", "user_issuer": Self.issuer,
            "user_key_file": pem, "user_key_id": "app-1",
        ]
        if served {
            // A served core does not tell its trusted audiences: the playbook names it.
            vars["user_audience"] = "app-users"
            vars["attestation_root"] = world.home.appendingPathComponent("attestation-root.pem").path
        }
        let result = try world.run("jobs/import-keys.yaml", vars)
        #expect(result.status == 1, "rejects exit 1: \(result)")
        #expect(world.read("imported.csv").hasPrefix("source,reference,wallet_id,type,address,key_origin\r\n"))
        let imported = world.rows("imported.csv")
        let rejects = world.rows("rejects.csv")
        #expect(imported.map { $0["source"]! } == ["1", "2", "3", "4", "6", "7", "11"], "\(result)")
        let reasons = rejects.map { "\($0["source"]!) \($0["reason"]!.prefix { $0 != ":" }) \($0["error_class"]!)" }
        #expect(
            reasons == [
                "5 duplicateKey duplicate", "8 duplicateKey duplicate", "9 wrongLength validation",
                "10 missingSubject validation",
            ], "\(rejects)")
        let reason = { (source: String) in rejects.first { $0["source"] == source }?["reason"] ?? "" }
        // Row 5: the core refused alice's address for bob (held outside bob's account); row 8: the window.
        #expect(reason("5").contains("already a wallet outside this account"), "\(reason("5"))")
        #expect(reason("8") == "duplicateKey: the same key as 7")
        let missing = reason("10")
        #expect(missing.contains("row 10 of \(input)"), "\(missing)")

        // Every wallet is in its subject's account (the core's own tables, read-only).
        let owners = try Self.query(
            world,
            "SELECT w.id, a.subject FROM wallets w JOIN accounts a ON w.account_id = a.id WHERE a.issuer = '\(Self.issuer)'"
        )
        let ownerOf = Dictionary(uniqueKeysWithValues: owners.map { (Self.text($0[0]), Self.text($0[1])) })
        for row in imported {
            let expected = rows[Int(row["source"]!)! - 1]
            #expect(ownerOf[row["wallet_id"]!] == expected.subject, "row \(row["source"]!)")
            #expect(row["reference"] == expected.reference)
        }
        #expect(ownerOf.count == 7, "no other wallet in the users' accounts")
        // Exactly one sign-in (one credential) per subject, none for the row without one.
        let credentials = try Self.query(
            world,
            "SELECT a.subject, count(c.id) FROM credentials c JOIN accounts a ON c.account_id = a.id "
                + "WHERE a.issuer = '\(Self.issuer)' GROUP BY a.subject ORDER BY a.subject")
        #expect(credentials.map { "\(Self.text($0[0]))=\(Self.text($0[1]))" } == ["alice=1", "bob=1", "carol=1"])

        // Each subject, signed in on its own afterwards, lists exactly its wallets.
        let home = WalletHome(url: world.home)
        let connection = try CoreConnection.open(
            home: home, coreURL: world.server?.baseURL, openHome: world.server == nil
        ) { home in
            let core = try EmbeddedCore.open(home: home.url)
            return InProcessCore(transport: core.transport, developmentIssuer: core.developmentIssuer)
        }
        let publishableKey = try PublishableKey(try #require(try StoredCredential.load(home: home)).publishableKey)
        let appIssuer = try AppIssuer(issuer: Self.issuer, audience: "app-users", keyID: "app-1", pemFile: pem)
        let signIn = SubjectSignIn(issuer: appIssuer, connection: connection, publishableKey: publishableKey)
        for subject in ["alice", "bob", "carol"] {
            let wallets = try await CoreConnection.allWallets(try await signIn.client(for: subject))
            let expected = imported.filter { rows[Int($0["source"]!)! - 1].subject == subject }
            #expect(Set(wallets.map(\.id)) == Set(expected.map { $0["wallet_id"]! }), "\(subject)")
            #expect(Set(wallets.map(\.address)) == Set(expected.map { $0["address"]! }))
            #expect(wallets.allSatisfy { $0.keyOrigin == .imported })
        }
        // The operator's own account got none of them.
        let operatorWallets = try BuiltBinary.run(
            ["wallet", "list", "--home", world.home.path] + (served ? ["--core", world.core] : []))
        #expect(operatorWallets.status == 0, "\(operatorWallets)")
        #expect(!operatorWallets.standardOutput.contains("wal_"), "\(operatorWallets)")

        // Resume-safe: the same run again settles every row the same way (the core holds each key).
        let again = try world.run("jobs/import-keys.yaml", vars.merging(["output": world.path("again.csv")]) { $1 })
        #expect(again.status == 1, "\(again)")
        #expect(world.rows("again.csv") == imported)

        try JobsEndToEndTests.expectNoSecrets(
            keys: keys, passwords: try Self.pemLines(pem), in: [world.scratch],
            outputs: [result, again, operatorWallets])
    }

    /// The run report named on a run's last stdout line (`report: PATH`), where a failed step's error is.
    static func report(_ result: CLIResult) throws -> String {
        let line = try #require(result.standardOutput.split(separator: "\n").last { $0.hasPrefix("report: ") })
        return try String(contentsOfFile: String(line.dropFirst("report: ".count)), encoding: .utf8)
    }

    @Test func refusesInputsWithoutSubjectsAndInlineKeys() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let secrets = try SecretsDirectory()
        let pem = secrets.path("app-issuer.pem")
        try Self.makeTrustedIssuer(world, pem: pem)
        let keys = (0..<2).map { _ in Self.randomKey() }
        let input = secrets.path("shared.csv")
        try Data("private_key,reference\n\(keys[0]),r-1\n\(keys[1]),r-2\n".utf8).write(to: URL(fileURLWithPath: input))
        let base = [
            "input": input, "format": "hex-csv", "output": world.path("imported.csv"),
            "rejects": world.path("rejects.csv"), "user_issuer": Self.issuer, "user_key_file": pem,
            "user_key_id": "app-1",
        ]
        // No subject column: the run stops before any sign-in (aborted: its rows cannot be read), naming the file.
        let noColumn = try world.run("jobs/import-keys.yaml", base)
        #expect(noColumn.status == 2, "\(noColumn)")
        let noColumnText = try Self.report(noColumn)
        #expect(
            noColumnText.contains("input \(input): per-user mode (user_issuer) needs a subject column"), "\(noColumn)")
        #expect(!FileManager.default.fileExists(atPath: world.path("imported.csv")))
        #expect(
            try Self.query(world, "SELECT count(*) FROM accounts WHERE issuer = '\(Self.issuer)'").first?.first
                == .integer(0))

        // A directory format has no subjects.
        let directory = try world.run(
            "jobs/import-keys.yaml", base.merging(["format": "raw-dir", "type": "ethereum"]) { $1 })
        #expect(directory.status != 0 && directory.status != 1, "\(directory)")
        #expect((directory.standardOutput + directory.standardError).contains("not format raw-dir"), "\(directory)")

        // The PEM given inline instead of its path: refused without repeating it.
        let pemText = try String(contentsOfFile: pem, encoding: .utf8)
        let inline = try world.run("jobs/import-keys.yaml", base.merging(["user_key_file": pemText]) { $1 })
        #expect(inline.status != 0 && inline.status != 1, "\(inline)")
        #expect(
            (inline.standardOutput + inline.standardError).contains("user_key_file must be the path of a PEM file"),
            "\(inline.standardError)")

        // An issuer the project does not trust: stopped before any sign-in, with the set-up command.
        let withSubjects = secrets.path("subjects.csv")
        try Data("private_key,subject\n\(keys[0]),u-1\n\(keys[1]),u-2\n".utf8).write(
            to: URL(fileURLWithPath: withSubjects))
        let untrusted = try world.run(
            "jobs/import-keys.yaml",
            base.merging(["input": withSubjects, "user_issuer": "https://other.example"]) { $1 })
        // The failure of the first row stops the run (the step's failure budget is 0).
        #expect(untrusted.status == 2 && untrusted.standardOutput.contains("import  failed"), "\(untrusted)")
        let untrustedText = try Self.report(untrusted)
        #expect(
            untrustedText.contains(
                "does not trust user_issuer https://other.example: walletops core trust-issuer --issuer https://other.example"
            ),
            "\(untrustedText)")

        try JobsEndToEndTests.expectNoSecrets(
            keys: keys, passwords: try Self.pemLines(pem), in: [world.scratch],
            outputs: [noColumn, directory, inline, untrusted])
    }
}
