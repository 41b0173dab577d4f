import Foundation
import TestSupport
import Testing

/// `jobs/reconcile.yaml` through the built binary, on the embedded core and on `core serve`: a core that
/// holds part of an input's keys reconciles to exactly the missing rows, a key held under another
/// reference to `reference-mismatch`, a wallet of no row to the unexplained count, and every import
/// format reconciles what it imported; no phrase, passphrase (two rows have non-ASCII ones), seed or key
/// in any file of the home or the outputs, nor in the commands' output.
@Suite(.serialized) struct ReconcileEndToEndTests {
    /// `count` BIP-39 phrases made from fixed entropy (SHA-256 of `reconcile-<n>`, 16 bytes) by eth-account,
    /// with their seeds (hex) and the private keys and addresses of accounts 0 to `accounts`-1 on
    /// `m/44'/60'/0'/0/i`. With `passphrases`, every seventh phrase (n = 6, 13, ...) has the non-ASCII
    /// passphrase `Paß wörd <n>` (precomposed: eth-account and the import both NFKD it).
    static func phrases(_ count: Int, accounts: Int, passphrases: Bool = false) throws -> [(
        phrase: String, passphrase: String, seed: String, keys: [String], addresses: [String]
    )] {
        let script = """
            import hashlib, json
            from eth_account import Account
            from eth_account.hdaccount import key_from_seed, seed_from_mnemonic
            from eth_account.hdaccount.mnemonic import Mnemonic
            out = []
            for n in range(\(count)):
                phrase = Mnemonic().to_mnemonic(hashlib.sha256(b"reconcile-%d" % n).digest()[:16])
                passphrase = "Pa\\u00df w\\u00f6rd %d" % n if \(passphrases ? "True" : "False") and n % 7 == 6 else ""
                seed = seed_from_mnemonic(phrase, passphrase)
                keys = [key_from_seed(seed, f"m/44'/60'/0'/0/{i}") for i in range(\(accounts))]
                out.append({"phrase": phrase, "passphrase": passphrase, "seed": seed.hex(), "keys": [k.hex() for k in keys],
                            "addresses": [Account.from_key(k).address for k in keys]})
            print(json.dumps(out))
            """
        let cases = try JSONSerialization.jsonObject(with: Data(try PythonOracle.run(script).utf8)) as! [[String: Any]]
        return cases.map {
            (
                $0["phrase"] as! String, $0["passphrase"] as! String, $0["seed"] as! String,
                ($0["keys"] as! [String]).map { $0.hasPrefix("0x") ? String($0.dropFirst(2)) : $0 },
                $0["addresses"] as! [String]
            )
        }
    }

    @Test(arguments: [false, true]) func aCoreWithPartOfTheInputReconcilesToTheMissingRows(served: Bool) throws {
        let world = try JobsEndToEndTests.JobsWorld(served: served)
        try FileManager.default.createDirectory(atPath: world.path("out"), withIntermediateDirectories: true)
        let cases = try Self.phrases(20, accounts: 5, passphrases: true)
        #expect(cases.filter { !$0.passphrase.isEmpty }.count == 2)
        // The legacy input: 20 phrases of 5 accounts, then a phrase whose checksum fails (row 21: a reject).
        var full = ["mnemonic,passphrase,count,reference"]
        full += cases.enumerated().map { "\($1.phrase),\($1.passphrase),5,p\($0 + 1)" }
        full.append("\(Array(repeating: "abandon", count: 12).joined(separator: " ")),,1,bad")
        try Data((full.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: world.path("legacy.csv")))
        // What the core got: rows 3, 8 and 13 without their account 4, row 5 under another reference.
        var part = ["mnemonic,passphrase,indices,reference"]
        for (index, item) in cases.enumerated() {
            let row = index + 1
            part.append(
                "\(item.phrase),\(item.passphrase),\([3, 8, 13].contains(row) ? "0-3" : "0-4"),"
                    + (row == 5 ? "other" : "p\(row)"))
        }
        try Data((part.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: world.path("part.csv")))
        let importPhrases = { (input: String, output: String) throws -> CLIResult in
            try world.run(
                "jobs/import-keys.yaml",
                [
                    "input": world.path(input), "format": "mnemonic-csv", "type": "ethereum",
                    "output": world.path("out/\(output).csv"), "rejects": world.path("out/\(output)-rejects.csv"),
                    "core": "",
                ])
        }
        // The legacy input against the core (the same command each time).
        let reconcile = {
            try world.run(
                "jobs/reconcile.yaml",
                [
                    "input": world.path("legacy.csv"), "format": "mnemonic-csv", "type": "ethereum",
                    "output": world.path("out/reconcile.csv"), "summary": world.path("out/summary.json"),
                    "rejects": world.path("out/rejects.csv"), "core": "",
                ])
        }
        let imported = try importPhrases("part.csv", "imported")
        #expect(imported.status == 0, "\(imported)")
        #expect(world.rows("out/imported.csv").count == 97)
        // A wallet that no row of the legacy input explains.
        let created = try world.run(
            "jobs/create-wallets.yaml", ["count": "1", "reference_prefix": "stray", "output": world.path("out/w.csv")])
        #expect(created.status == 0, "\(created)")

        let reconciled = try reconcile()
        #expect(reconciled.status == 1, "missing keys exit 1: \(reconciled)")
        let text = world.read("out/reconcile.csv")
        #expect(
            text.hasPrefix("source,reference,address,status,wallet_id\r\n")
                || text.hasPrefix(
                    "source,reference,address,status,wallet_id\n")
        )
        let rows = world.rows("out/reconcile.csv")
        #expect(rows.count == 100)
        let wallets = Dictionary(
            world.rows("out/imported.csv").map { ($0["address"]!, $0["wallet_id"]!) },
            uniquingKeysWith: { first, _ in first })
        for (index, item) in cases.enumerated() {
            for account in 0..<5 {
                let source = "\(index + 1):\(account)"
                guard let row = rows.first(where: { $0["source"] == source }) else {
                    Issue.record("no row \(source)")
                    continue
                }
                #expect(row["address"] == item.addresses[account], "row \(source): the address eth-account derives")
                #expect(row["reference"] == "p\(index + 1)-\(account)")
                let missing = [3, 8, 13].contains(index + 1) && account == 4
                let expected = missing ? "missing" : index + 1 == 5 ? "reference-mismatch" : "present"
                #expect(row["status"] == expected, "row \(source)")
                #expect(row["wallet_id"] == (missing ? "" : wallets[item.addresses[account]]), "row \(source)")
            }
        }
        #expect(rows.map { $0["source"]! } == (1...20).flatMap { row in (0..<5).map { "\(row):\($0)" } }, "input order")
        let rejects = world.rows("out/rejects.csv")
        #expect(rejects.count == 1 && rejects.first?["source"] == "21", "\(rejects)")
        #expect(rejects.first?["reason"]?.hasPrefix("mnemonicChecksum") == true, "\(rejects)")
        let summary =
            try JSONSerialization.jsonObject(with: Data(world.read("out/summary.json").utf8)) as? [String: Int]
        #expect(
            summary
                == [
                    "rows": 100, "present": 92, "missing": 3, "reference_mismatch": 5, "core_wallets": 98,
                    "unexplained": 1,
                ], "\(world.read("out/summary.json"))")

        // The missing keys imported, the same command reconciles everything but the stray wallet and row 5.
        var rest = ["mnemonic,passphrase,indices,reference"]
        for row in [3, 8, 13] { rest.append("\(cases[row - 1].phrase),\(cases[row - 1].passphrase),4,p\(row)") }
        try Data((rest.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: world.path("rest.csv")))
        let second = try importPhrases("rest.csv", "imported-2")
        #expect(second.status == 0, "\(second)")
        let again = try reconcile()
        #expect(again.status == 1, "the bad row still exits 1: \(again)")
        let after = try JSONSerialization.jsonObject(with: Data(world.read("out/summary.json").utf8)) as? [String: Int]
        #expect(after?["missing"] == 0 && after?["present"] == 95 && after?["unexplained"] == 1, "\(after ?? [:])")

        let keys = cases.flatMap(\.keys) + cases.map(\.seed)
        let passphrases = cases.map(\.passphrase).filter { !$0.isEmpty }
        let phrases =
            passphrases + passphrases.map(\.decomposedStringWithCompatibilityMapping)
            + cases.flatMap { item in
                let words = item.phrase.split(separator: " ")
                return (0...(words.count - 3)).map { words[$0..<($0 + 3)].joined(separator: " ") }
            }
        try JobsEndToEndTests.expectNoSecrets(
            keys: keys, passwords: phrases, in: [world.home, URL(fileURLWithPath: world.path("out"))],
            outputs: [imported, reconciled, second, again])
    }

    @Test(arguments: [false, true]) func everyFormatReconcilesWhatItImported(served: Bool) throws {
        let world = try JobsEndToEndTests.JobsWorld(served: served)
        try FileManager.default.createDirectory(atPath: world.path("out"), withIntermediateDirectories: true)
        let examples = Fixtures.repositoryRoot.appendingPathComponent("examples")
        let inputs: [(name: String, vars: [String: String])] = [
            ("hex", ["input": examples.appendingPathComponent("keys-hex.csv").path, "format": "hex-csv"]),
            ("sol", ["input": examples.appendingPathComponent("solana-keys").path, "format": "solana-json-dir"]),
            (
                "keystores",
                [
                    "input": examples.appendingPathComponent("keystores").path, "format": "keystore-dir",
                    "password_file": examples.appendingPathComponent("keystores.password").path,
                ]
            ),
            ("phrases", ["input": examples.appendingPathComponent("phrases.csv").path, "format": "mnemonic-csv"]),
        ]
        var outputs: [CLIResult] = []
        for (name, vars) in inputs {
            let imported = try world.run(
                "jobs/import-keys.yaml",
                vars.merging(
                    [
                        "output": world.path("out/\(name)-imported.csv"),
                        "rejects": world.path("out/\(name)-rejects.csv"), "core": "",
                    ],
                    uniquingKeysWith: { $1 }))
            let reconciled = try world.run(
                "jobs/reconcile.yaml",
                vars.merging(
                    [
                        "output": world.path("out/\(name)-reconcile.csv"),
                        "summary": world.path("out/\(name)-summary.json"),
                        "rejects": world.path("out/\(name)-reconcile-rejects.csv"), "core": "",
                    ], uniquingKeysWith: { $1 }))
            outputs += [imported, reconciled]
            let rows = world.rows("out/\(name)-reconcile.csv")
            let importedRows = world.rows("out/\(name)-imported.csv")
            #expect(!importedRows.isEmpty, "\(name): \(imported)")
            #expect(!rows.contains { $0["status"] == "missing" }, "\(name): \(rows)")
            for row in importedRows {
                let match = rows.first { $0["source"] == row["source"] }
                #expect(match?["status"] == "present", "\(name) \(row["source"] ?? ""): \(match ?? [:])")
                #expect(match?["wallet_id"] == row["wallet_id"] && match?["address"] == row["address"], "\(name)")
            }
            // A row the import refused for its key is refused here too; a duplicate's key is a wallet.
            let refused = world.rows("out/\(name)-rejects.csv").filter { $0["error_class"] != "duplicate" }
            #expect(
                Set(world.rows("out/\(name)-reconcile-rejects.csv").map { $0["source"]! })
                    == Set(refused.map { $0["source"]! }), "\(name)")
            #expect(reconciled.status == (refused.isEmpty ? 0 : 1), "\(name): \(reconciled)")
        }
        let hexKeys = JobsEndToEndTests.parseCSV(
            try String(contentsOf: examples.appendingPathComponent("keys-hex.csv"), encoding: .utf8)
        ).compactMap { $0["private_key"] }.map { $0.hasPrefix("0x") ? String($0.dropFirst(2)) : $0 }
        try JobsEndToEndTests.expectNoSecrets(
            keys: hexKeys, passwords: [], in: [world.home, URL(fileURLWithPath: world.path("out"))], outputs: outputs)
    }
}
