import Foundation
import Synchronization
import TestSupport
import Testing

/// The four jobs end to end through the built binary: on the embedded core, and on `core serve` over
/// loopback (same playbooks, `walletops run --core URL`).
@Suite(.serialized) struct JobsEndToEndTests {
    /// A home signed in to its embedded core, or to that home served on loopback.
    final class JobsWorld {
        let scratch: URL
        let home: URL
        let server: ServedBinary?
        var core: String { server?.baseURL.absoluteString ?? "" }
        var runs = 0

        init(served: Bool) throws {
            scratch = try makeTemporaryDirectory()
            home = scratch.appendingPathComponent("home")
            var initArguments = ["core", "init", "--home", home.path]
            var port = 0
            if served {
                port = try ServedBinary.freePort()
                initArguments += ["--issuer", "http://127.0.0.1:\(port)"]
            }
            let initialized = try BuiltBinary.run(initArguments)
            #expect(initialized.status == 0, "\(initialized)")
            server = served ? try ServedBinary(home: home, listen: "127.0.0.1:\(port)") : nil
            var login = ["login", "--dev", "--email", "ops@example.com", "--home", home.path]
            if let server { login += ["--core", server.baseURL.absoluteString] }
            let signedIn = try BuiltBinary.run(login)
            #expect(signedIn.status == 0, "\(signedIn)")
        }

        deinit { try? FileManager.default.removeItem(at: scratch) }

        func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

        func read(_ name: String) -> String { (try? String(contentsOfFile: path(name), encoding: .utf8)) ?? "" }

        /// `walletops run <repo>/<playbook> --home H [--core URL] --var ... --fresh`.
        func run(_ playbook: String, _ vars: [String: String], environment: [String: String] = [:]) throws
            -> CLIResult
        {
            let file =
                playbook.hasPrefix("/") ? playbook : Fixtures.repositoryRoot.appendingPathComponent(playbook).path
            var arguments = ["run", file, "--home", home.path, "--fresh"]
            if let server { arguments += ["--core", server.baseURL.absoluteString] }
            for (name, value) in vars.sorted(by: { $0.key < $1.key }) { arguments += ["--var", "\(name)=\(value)"] }
            runs += 1
            return try BuiltBinary.run(arguments, environment: environment, directory: scratch)
        }

        /// CSV rows of a file as dictionaries (no quoted line breaks in the jobs' outputs).
        func rows(_ name: String) -> [[String: String]] {
            JobsEndToEndTests.parseCSV(read(name))
        }
    }

    static func parseCSV(_ text: String) -> [[String: String]] {
        var lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map {
            String($0).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        }
        guard !lines.isEmpty else { return [] }
        let header = splitCSVLine(lines.removeFirst())
        return lines.map { line in
            Dictionary(uniqueKeysWithValues: zip(header, splitCSVLine(line)).map { ($0, $1) })
        }
    }

    static func splitCSVLine(_ line: String) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var previousQuote = false
        for character in line {
            if quoted {
                if character == "\"" { quoted = false; previousQuote = true } else { field.append(character) }
            } else if character == "\"" {
                if previousQuote { field.append("\"") }
                quoted = true
                previousQuote = false
            } else if character == "," {
                fields.append(field)
                field = ""
                previousQuote = false
            } else {
                field.append(character)
                previousQuote = false
            }
        }
        fields.append(field)
        return fields
    }

    // MARK: - create-wallets

    @Test(arguments: [false, true]) func createWallets(served: Bool) throws {
        let world = try JobsWorld(served: served)
        let first = try world.run(
            "jobs/create-wallets.yaml", ["count": "5", "output": world.path("w.csv"), "reference_prefix": "acct"])
        #expect(first.status == 0, "\(first)")
        #expect(world.read("w.csv").hasPrefix("reference,wallet_id,type,address,key_origin\r\n"))
        let rows = world.rows("w.csv")
        #expect(rows.map { $0["reference"]! } == (1...5).map { "acct-\($0)" })
        #expect(rows.allSatisfy { $0["type"] == "ethereum" && $0["key_origin"] == "enclave" })

        #expect(!FileManager.default.fileExists(atPath: world.path("w.csv.partial")), "written in place")

        // Again with a larger count, in batches of 2 with 3 in flight: the five are kept (same ids), two
        // are added, and the rows stay in reference order.
        let second = try world.run(
            "jobs/create-wallets.yaml",
            ["count": "7", "output": world.path("w2.csv"), "reference_prefix": "acct", "batch": "2", "parallel": "3"])
        #expect(second.status == 0, "\(second)")
        let again = world.rows("w2.csv")
        #expect(again.map { $0["reference"]! } == (1...7).map { "acct-\($0)" })
        #expect(Array(again.prefix(5)).map { $0["wallet_id"]! } == rows.map { $0["wallet_id"]! })
        #expect(Set(again.map { $0["wallet_id"]! }).count == 7)
        #expect(Set(again.map { $0["address"]! }).count == 7)

        // Solana, and the for_each form over a CSV of references (two of which exist already).
        let solana = try world.run(
            "jobs/create-wallets.yaml",
            ["count": "2", "type": "solana", "output": world.path("s.csv"), "reference_prefix": "sol"])
        #expect(solana.status == 0, "\(solana)")
        #expect(world.rows("s.csv").allSatisfy { $0["type"] == "solana" && !$0["address"]!.hasPrefix("0x") })
        // A playbook's own `type` is read as the import's `type` column is (any case, trimmed); a type that
        // is none of them is the step's usage error, before anything is made.
        for (type, status) in [(" Solana ", Int32(0)), ("dogecoin", 64)] {
            try Data(
                """
                name: typed
                inputs:
                  references: {range: "1"}
                steps:
                  - id: create
                    action: jobs.create-wallets
                    for_each: references
                    with: {type: "\(type)", reference_prefix: typed, output: \(world.path("t.csv"))}
                """.utf8
            ).write(to: URL(fileURLWithPath: world.path("typed.yaml")))
            let typed = try world.run(world.path("typed.yaml"), [:])
            #expect(typed.status == status, "\(typed)")
            if status == 0 {
                #expect(world.rows("t.csv").map { $0["type"] } == ["solana"], "\(typed)")
            } else {
                #expect(typed.standardError.contains("type 'dogecoin' is not ethereum or solana"), "\(typed)")
            }
        }
        try Data("reference\nacct-1\ncustomer-a\nacct-2\ncustomer-b\n".utf8).write(
            to: URL(fileURLWithPath: world.path("refs.csv")))
        let fromCSV = try world.run(
            "jobs/create-wallets-from-csv.yaml", ["input": world.path("refs.csv"), "output": world.path("c.csv")])
        #expect(fromCSV.status == 0, "\(fromCSV)")
        let csvRows = world.rows("c.csv")
        #expect(csvRows.map { $0["reference"]! } == ["acct-1", "customer-a", "acct-2", "customer-b"])
        #expect(csvRows[0]["wallet_id"] == rows[0]["wallet_id"])
        let list = try BuiltBinary.run(
            ["wallet", "list", "--home", world.home.path] + (served ? ["--core", world.core] : []))
        #expect(list.status == 0, "\(list)")
        // 7 acct + 2 sol + 1 typed + 2 customers, each once.
        #expect(list.standardOutput.split(separator: "\n").filter { $0.contains("wal_") }.count == 12, "\(list)")
    }

    // MARK: - import-keys

    static let hexKeys: [String] = {
        let text =
            (try? String(
                contentsOf: Fixtures.repositoryRoot.appendingPathComponent("examples/keys-hex.csv"), encoding: .utf8))
            ?? ""
        return text.split(whereSeparator: \.isNewline).dropFirst().map { line in
            String(line.split(separator: ",", omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
                .replacingOccurrences(of: "0x", with: "")
        }
    }()

    @Test(arguments: [false, true]) func importHexCSV(served: Bool) throws {
        let world = try JobsWorld(served: served)
        var vars = [
            "input": Fixtures.repositoryRoot.appendingPathComponent("examples/keys-hex.csv").path, "format": "hex-csv",
            "output": world.path("imported.csv"), "rejects": world.path("rejects.csv"),
        ]
        if served { vars["attestation_root"] = world.home.appendingPathComponent("attestation-root.pem").path }
        let result = try world.run("jobs/import-keys.yaml", vars)
        #expect(result.status == 1, "rejects exit 1: \(result)")
        // The summary counts the input's rows: 9 in all, 3 imported, 6 rejected.
        let summary = result.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            .first { $0.first == "import" }
        #expect(summary == ["import", "succeeded", "9", "3", "0", "6", "0"], "\(result.standardOutput)")
        #expect(world.read("imported.csv").hasPrefix("source,reference,wallet_id,type,address,key_origin\r\n"))
        #expect(world.read("rejects.csv").hasPrefix("source,reason,error_class\r\n"))
        let imported = world.rows("imported.csv")
        let rejects = world.rows("rejects.csv")
        #expect(imported.map { $0["source"]! } == ["1", "2", "3"])
        #expect(imported.map { $0["reference"]! } == ["legacy-alice", "legacy-bob", "import-3"])
        #expect(imported.allSatisfy { $0["key_origin"] == "imported" && $0["type"] == "ethereum" })
        let reasons = rejects.map { "\($0["source"]!) \($0["reason"]!.prefix { $0 != ":" }) \($0["error_class"]!)" }
        #expect(
            reasons == [
                "4 wrongLength validation", "5 notHex validation", "6 zeroKey validation",
                "7 keyOutOfRange validation", "8 expectedAddressMismatch mismatch", "9 duplicateKey duplicate",
            ])
        // Nothing lost: every row is in exactly one of the two files.
        #expect(imported.count + rejects.count == 9)

        // The addresses, by an independent oracle (eth-account).
        let keys = Self.hexKeys
        let oracle = try PythonOracle.run(
            """
            import sys
            from eth_account import Account
            for k in sys.stdin.read().split():
                print(Account.from_key(bytes.fromhex(k)).address)
            """, stdin: keys.prefix(3).joined(separator: "\n"))
        #expect(oracle.split(separator: "\n").map(String.init) == imported.map { $0["address"]! })

        // Resume-safe: the same run again imports nothing new and settles every row the same way.
        let again = try world.run("jobs/import-keys.yaml", vars.merging(["output": world.path("again.csv")]) { $1 })
        #expect(again.status == 1, "\(again)")
        #expect(world.rows("again.csv") == imported.map { row in row })

        try Self.expectNoSecrets(keys: keys, passwords: [], in: [world.scratch], outputs: [result, again])
    }

    /// 1,000 rows, 300 distinct keys repeated at pseudo-random later rows, parallel = 4: on the real
    /// core, for several batch sizes, each key is imported by its first row and every later row is a
    /// duplicate (caught in the window of batches in flight, or by the core once its batch settled).
    @Test(arguments: [16, 100, 333]) func importFirstRowWinsAcrossBatches(batch: Int) throws {
        let world = try JobsWorld(served: false)
        var state = UInt64(batch)
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        let distinct = (1...300).map { String(format: "%064x", $0 &* 1_000_003 &+ 17) }
        var keys = distinct
        while keys.count < 1000 { keys.insert(distinct[next() % 300], at: 300 + next() % (keys.count - 299)) }
        try Data(("private_key\n" + keys.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: world.path("keys.csv")))
        let result = try world.run(
            "jobs/import-keys.yaml",
            [
                "input": world.path("keys.csv"), "format": "hex-csv", "output": world.path("out.csv"),
                "rejects": world.path("rej.csv"), "parallel": "4", "batch": String(batch),
            ])
        #expect(result.status == 1, "duplicates are rejects: \(result)")
        var first: [String: Int] = [:]
        for (row, key) in keys.enumerated() where first[key] == nil { first[key] = row + 1 }
        let imported = world.rows("out.csv")
        let rejects = world.rows("rej.csv")
        #expect(imported.map { Int($0["source"]!)! } == first.values.sorted(), "the first rows, in order")
        #expect(rejects.count == 700 && rejects.allSatisfy { $0["error_class"] == "duplicate" })
        #expect(Set(imported.map { $0["address"]! }).count == 300)
    }

    /// Two import processes on one home at once, their inputs overlapping by a third: every key is stored
    /// exactly once, by one of them, and the other rejects it as a duplicate (each process's core finds
    /// the other's wallets by catching its index of recent address keys up from the wallets table, migration
    /// 8); a third process, whose index is built from the table, rejects every key. Each run names its rows'
    /// references with a prefix of its own (a row whose reference and key are already stored is reported as
    /// imported: an idempotent rerun).
    @Test func twoProcessesImportingOverlappingKeysStoreEachOnce() throws {
        let world = try JobsWorld(served: false)
        let keys = (1...1_500).map { String(format: "%064x", $0 &* 7_919 &+ 104_729) }
        let inputs = [Array(keys[0..<1_000]), Array(keys[500..<1_500])]
        for (index, input) in inputs.enumerated() {
            try Data(("private_key\n" + input.joined(separator: "\n") + "\n").utf8).write(
                to: URL(fileURLWithPath: world.path("keys\(index).csv")))
        }
        // Runs of one playbook (by name) exclude each other (docs/playbooks.md "lock"): the second process
        // runs a copy under another name, as an operator splitting a migration would.
        let playbook = Fixtures.repositoryRoot.appendingPathComponent("jobs/import-keys.yaml")
        let copy = try String(contentsOf: playbook, encoding: .utf8).replacingOccurrences(
            of: "\nname: import-keys\n", with: "\nname: import-keys-b\n")
        #expect(copy.contains("\nname: import-keys-b\n"))
        try Data(copy.utf8).write(to: URL(fileURLWithPath: world.path("import-keys-b.yaml")))
        let playbooks = [playbook.path, world.path("import-keys-b.yaml")]
        // Built here: the world is not Sendable, its paths are.
        let runs = (0..<2).map { index in
            [
                "run", playbooks[index], "--home",
                world.home.path, "--fresh", "--var", "input=" + world.path("keys\(index).csv"), "--var",
                "format=hex-csv",
                "--var", "output=" + world.path("out\(index).csv"), "--var", "rejects=" + world.path("rej\(index).csv"),
                "--var", "parallel=4", "--var", "batch=25", "--var", "reference_prefix=part\(index)",
            ]
        }
        let directory = world.scratch
        let statuses = Mutex<[Int: Int32]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let result = try? BuiltBinary.run(runs[index], directory: directory)
            statuses.withLock { $0[index] = result?.status ?? -1 }
        }
        let imported = [world.rows("out0.csv"), world.rows("out1.csv")]
        let rejected = [world.rows("rej0.csv"), world.rows("rej1.csv")]
        let addresses = imported.flatMap { $0.map { $0["address"]!.lowercased() } }
        #expect(statuses.withLock { $0 }.values.allSatisfy { $0 == 0 || $0 == 1 }, "\(statuses.withLock { $0 })")
        #expect(addresses.count == 1_500 && Set(addresses).count == 1_500, "each key stored once: \(addresses.count)")
        #expect(rejected.map(\.count).reduce(0, +) == 500, "the overlap is rejected once")
        #expect(rejected.allSatisfy { $0.allSatisfy { $0["error_class"] == "duplicate" } })
        for side in 0..<2 {
            #expect(imported[side].count + rejected[side].count == 1_000, "every row of input \(side) accounted for")
        }
        try Data(("private_key\n" + keys.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: world.path("all.csv")))
        let again = try world.run(
            "jobs/import-keys.yaml",
            [
                "input": world.path("all.csv"), "format": "hex-csv", "output": world.path("again.csv"),
                "rejects": world.path("again-rej.csv"), "reference_prefix": "again",
            ])
        #expect(again.status == 1 && world.rows("again.csv").isEmpty, "\(again)")
        #expect(world.rows("again-rej.csv").count == 1_500)
    }

    @Test func importKeystoresAndSolanaKeypairs() throws {
        let world = try JobsWorld(served: false)
        let examples = Fixtures.repositoryRoot.appendingPathComponent("examples")
        let keystores = try world.run(
            "jobs/import-keys.yaml",
            [
                "input": examples.appendingPathComponent("keystores").path, "format": "keystore-dir",
                "password_file": examples.appendingPathComponent("keystores.password").path,
                "output": world.path("ks.csv"), "rejects": world.path("ks-rejects.csv"),
            ])
        #expect(keystores.status == 0, "\(keystores)")
        let ks = world.rows("ks.csv")
        #expect(ks.map { $0["source"]! } == ["pbkdf2-1.json", "scrypt-1.json"])
        #expect(ks.map { $0["reference"]! } == ["pbkdf2-1", "scrypt-1"])
        let password = try String(
            contentsOf: examples.appendingPathComponent("keystores.password"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let ethOracle = try PythonOracle.run(
            """
            import sys, json, os
            from eth_account import Account
            d, pw = sys.argv[1], sys.argv[2]
            for name in sorted(os.listdir(d)):
                key = Account.decrypt(json.load(open(os.path.join(d, name))), pw)
                print(Account.from_key(key).address)
            """, arguments: [examples.appendingPathComponent("keystores").path, password])
        #expect(ethOracle.split(separator: "\n").map(String.init) == ks.map { $0["address"]! })

        // A wrong password: every file is rejected as a decryption failure, nothing imported.
        let wrong = try world.run(
            "jobs/import-keys.yaml",
            [
                "input": examples.appendingPathComponent("keystores").path, "format": "keystore-dir",
                "password_env": "H15_WRONG_PASSWORD", "output": world.path("w.csv"), "rejects": world.path("w-rej.csv"),
            ], environment: ["H15_WRONG_PASSWORD": "not-the-password"])
        #expect(wrong.status == 1, "\(wrong)")
        #expect(world.rows("w-rej.csv").map { $0["error_class"]! } == ["decryption", "decryption"])

        let solana = try world.run(
            "jobs/import-keys.yaml",
            [
                "input": examples.appendingPathComponent("solana-keys").path, "format": "solana-json-dir",
                "output": world.path("sol.csv"), "rejects": world.path("sol-rejects.csv"),
            ])
        #expect(solana.status == 0, "\(solana)")
        let sol = world.rows("sol.csv")
        let solOracle = try PythonOracle.run(
            """
            import sys, json, os
            from solders.keypair import Keypair
            d = sys.argv[1]
            for name in sorted(os.listdir(d)):
                print(Keypair.from_bytes(bytes(json.load(open(os.path.join(d, name))))).pubkey())
            """, arguments: [examples.appendingPathComponent("solana-keys").path])
        #expect(solOracle.split(separator: "\n").map(String.init) == sol.map { $0["address"]! })
        #expect(sol.allSatisfy { $0["type"] == "solana" })

        // Secrets: the keystore password and the Solana seeds appear nowhere.
        var solanaKeys: [String] = []
        for name in ["sol-1.json", "sol-2.json", "sol-3.json"] {
            let data = try Data(contentsOf: examples.appendingPathComponent("solana-keys/\(name)"))
            let bytes = try #require(try JSONSerialization.jsonObject(with: data) as? [Int])
            solanaKeys.append(bytes.prefix(32).map { String(format: "%02x", $0) }.joined())
        }
        try Self.expectNoSecrets(
            keys: solanaKeys, passwords: [password], in: [world.scratch], outputs: [keystores, wrong, solana])
    }

    /// No key (hex, and the raw bytes of each) and no password in any file under `roots` or in the
    /// commands' output.
    static func expectNoSecrets(keys: [String], passwords: [String], in roots: [URL], outputs: [CLIResult]) throws {
        // The zero key and n are public constants (and 32 zero bytes are everywhere in a database).
        let secrets = keys.filter {
            $0.count >= 32 && $0.allSatisfy(\.isHexDigit) && $0 != String(repeating: "0", count: 64)
                && !$0.hasPrefix("fffffffffffffffffffffffffffffffe")
        }
        var needles: [[UInt8]] = passwords.map { Array($0.utf8) }
        for key in secrets {
            needles.append(Array(key.utf8))
            needles.append(Array(key.uppercased().utf8))
            if let raw = Hex.decode(key), raw.count >= 16 { needles.append(raw) }
        }
        var scanned = 0
        for root in roots {
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
            while let url = enumerator?.nextObject() as? URL {
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                    let data = try? Data(contentsOf: url)
                else { continue }
                scanned += 1
                let bytes = [UInt8](data)
                for needle in needles where contains(bytes, needle) {
                    Issue.record("a secret appears in \(url.path)")
                }
            }
        }
        #expect(scanned > 3, "scanned \(scanned) files")
        for output in outputs {
            let text = Array((output.standardOutput + output.standardError).utf8)
            for needle in needles where contains(text, needle) {
                Issue.record("a secret appears in a command's output")
            }
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first && Array(haystack[index..<(index + needle.count)]) == needle { return true }
            index += 1
        }
        return false
    }

    // MARK: - revoke-sweep and usage-report

    @Test(arguments: [false, true]) func sweepAndReport(served: Bool) throws {
        let world = try JobsWorld(served: served)
        let seeded = try world.run("examples/seed-demo.yaml", ["transfers": world.path("transfers.csv")])
        #expect(seeded.status == 0, "\(seeded)")

        // Report: used per grant equals the sum of the staged transfers.
        let report = try world.run("jobs/usage-report.yaml", ["output_dir": world.path("report")])
        #expect(report.status == 0, "\(report)")
        #expect(
            world.read("report/usage.csv").hasPrefix(
                "wallet_id,wallet_address,app_name,app_url,credential_id,session_id,network,chain_id,grant_kind,"
                    + "grant_to,grant_token,limit,used,remaining,percent_used,used_native_units,expires_at,status,"
                    + "period_since,period_until,used_in_period"))
        var staged: [String: Decimal] = [:]
        for transfer in world.rows("transfers.csv") {
            staged["\(transfer["session_id"]!) \(transfer["grant_kind"]!)", default: 0] += Decimal(
                string: transfer["amount"]!)!
        }
        let usage = world.rows("report/usage.csv")
        #expect(usage.count >= 6)
        var checked = 0
        for row in usage {
            let key = "\(row["session_id"]!) \(row["grant_kind"]!)"
            #expect(Decimal(string: row["used"]!)! == staged[key] ?? 0, "\(key)")
            #expect(
                Decimal(string: row["limit"]!)! - Decimal(string: row["used"]!)! == Decimal(string: row["remaining"]!)!)
            if staged[key] != nil { checked += 1 }
        }
        #expect(checked == staged.count, "every staged grant is in the report")
        #expect(usage.contains { $0["status"] == "expired" })
        // The revoked session is listed (the owner's includeRevoked reads) with what it spent before.
        let revoked = usage.filter { $0["status"] == "revoked" }
        #expect(revoked.count == 1, "\(revoked)")
        #expect(revoked.first?["app_name"] == "Game Server" && revoked.first?["used"] == "250000000")
        #expect(Set(usage.map { $0["status"]! }).isSubset(of: ["active", "expired", "revoked"]))
        #expect(usage.contains { $0["used_native_units"] == "0.85" && $0["percent_used"] == "85.00" })
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(world.read("report/usage.json").utf8)) as? [String: Any])
        #expect((json["rows"] as? [Any])?.count == usage.count)
        #expect((json["near_limit_sessions"] as? [Any])?.count == 2)
        let html = world.read("report/usage.html")
        #expect(html.contains("<svg") && html.contains("sortable") && html.contains("By app"))
        #expect(!html.contains("src=\"http") && !html.contains("<link") && !html.contains("@import"))
        #expect(world.read("report/usage.md").contains("## By wallet"))
        if !served { try Self.renderInChromium(world.path("report/usage.html")) }
        #expect(world.read("report/usage.md").contains("Period: none (cumulative"))

        // A period: this UTC month holds every staged transfer (all made just now), a past month none.
        let month = String(ISO8601DateFormatter().string(from: Date()).prefix(7))
        let monthly = try world.run(
            "jobs/usage-report.yaml", ["output_dir": world.path("monthly"), "period": month])
        #expect(monthly.status == 0, "\(monthly)")
        let monthRows = world.rows("monthly/usage.csv")
        #expect(monthRows.count == usage.count)
        #expect(
            monthRows.allSatisfy { $0["used_in_period"] == $0["used"] && $0["period_since"] == "\(month)-01T00:00:00Z" }
        )
        #expect(world.read("monthly/usage.md").contains("Period: \(month)-01T00:00:00Z to "))
        let past = try world.run("jobs/usage-report.yaml", ["output_dir": world.path("past"), "period": "2020-01"])
        #expect(past.status == 0, "\(past)")
        #expect(world.rows("past/usage.csv").allSatisfy { $0["used_in_period"] == "0" })
        #expect(world.rows("past/usage.csv").contains { $0["used"] != "0" })
        // Units: the demo's token as a 6-decimal USDC from a token list; a malformed list stops the run.
        try Data(
            #"{"tokens": [{"chainId": 80002, "address": "0x3333333333333333333333333333333333333333", "symbol": "USDC", "decimals": 6}]}"#
                .utf8
        ).write(to: URL(fileURLWithPath: world.path("tokens.json")))
        let units = try world.run(
            "jobs/usage-report.yaml", ["output_dir": world.path("units"), "token_list": world.path("tokens.json")])
        #expect(units.status == 0, "\(units)")
        let unitRows = world.rows("units/usage.csv")
        #expect(unitRows.contains { $0["unit"] == "USDC" && $0["used_units"] == "250" && $0["used"] == "250000000" })
        #expect(unitRows.contains { $0["unit"] == "POL" && $0["used_units"] == "0.85" })
        #expect(
            usage.contains {
                $0["grant_kind"] == "erc20Transfer" && $0["unit"] == "0x3333333333333333333333333333333333333333"
            })
        // Wallets are named by their references.
        #expect(
            usage.allSatisfy { $0["wallet_reference"]!.hasPrefix("demo-eth-") },
            "\(usage.map { $0["wallet_reference"]! })")
        try Data("[\n{\"chainId\": 80002, \"address\": \"0x33\", \"symbol\": \"USDC\", \"decimals\": 6}]".utf8).write(
            to: URL(fileURLWithPath: world.path("bad-tokens.json")))
        let badList = try world.run(
            "jobs/usage-report.yaml", ["output_dir": world.path("bad"), "token_list": world.path("bad-tokens.json")])
        #expect(badList.status == 65, "\(badList)")
        #expect(
            badList.standardError.contains(
                "token list \(world.path("bad-tokens.json")):2: [0].address: expected 0x + 40 hex digits, got \"0x33\""),
            "\(badList)")
        // A folder per month: the job's output_dir under now | date('%Y-%m') (docs/jobs.md "Monthly").
        let job = try String(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("jobs/usage-report.yaml"), encoding: .utf8)
        let monthlyJob = job.replacingOccurrences(
            of: "output_dir: ${{ vars.output_dir }}",
            with: "output_dir: ${{ vars.output_dir }}/${{ now | date('%Y-%m') }}")
        #expect(monthlyJob.components(separatedBy: "date('%Y-%m')").count == 3, "both steps that write")
        try monthlyJob.write(toFile: world.path("monthly.yaml"), atomically: true, encoding: .utf8)
        let kept = try world.run(world.path("monthly.yaml"), ["output_dir": world.path("reports"), "period": month])
        #expect(kept.status == 0, "\(kept)")
        #expect(world.rows("reports/\(month)/usage.csv").count == usage.count)
        #expect(world.read("reports/\(month)/usage.html").contains("Period: \(month)-01T00:00:00Z"))
        let bad = try world.run("jobs/usage-report.yaml", ["output_dir": world.path("bad"), "period": "2026-13"])
        #expect(bad.status == 64, "\(bad)")
        #expect(
            bad.standardError.contains("period '2026-13' is not a month (YYYY-MM, e.g. 2026-11) or last-month"),
            "\(bad)")

        // Sweep: plan changes nothing (a second plan is identical).
        let planVars = ["select": "expired-or-non-caller", "output": world.path("plan.csv")]
        #expect(try world.run("jobs/revoke-sweep.yaml", planVars).status == 0)
        #expect(
            try world.run("jobs/revoke-sweep.yaml", planVars.merging(["output": world.path("plan2.csv")]) { $1 }).status
                == 0)
        #expect(world.read("plan.csv") == world.read("plan2.csv"))
        #expect(
            world.read("plan.csv").hasPrefix(
                "wallet_id,credential_id,session_id,type,app_name,expires_at,reason,result\r\n"))
        let plan = world.rows("plan.csv")
        let planned = Set(
            plan.filter { $0["result"] == "planned" }.map { "\($0["credential_id"]!) \($0["session_id"]!)" })
        #expect(planned.count >= 4)
        #expect(plan.contains { $0["result"] == "skipped-caller" })

        // max_revocations below the selection: abort before any change.
        let limited = try world.run(
            "jobs/revoke-sweep.yaml",
            planVars.merging(["mode": "apply", "max_revocations": "1", "output": world.path("limited.csv")]) { $1 })
        #expect(limited.status != 0, "\(limited)")
        #expect(
            try world.run("jobs/revoke-sweep.yaml", planVars.merging(["output": world.path("plan3.csv")]) { $1 }).status
                == 0)
        #expect(world.read("plan3.csv") == world.read("plan.csv"))

        // Apply revokes exactly the planned set; the caller survives; a second apply revokes nothing.
        let apply = try world.run(
            "jobs/revoke-sweep.yaml", planVars.merging(["mode": "apply", "output": world.path("apply.csv")]) { $1 })
        #expect(apply.status == 0, "\(apply)")
        let applied = world.rows("apply.csv")
        #expect(
            Set(applied.filter { $0["result"] == "revoked" }.map { "\($0["credential_id"]!) \($0["session_id"]!)" })
                == planned)
        #expect(!applied.contains { $0["result"] == "failed" })
        let second = try world.run(
            "jobs/revoke-sweep.yaml", planVars.merging(["mode": "apply", "output": world.path("apply2.csv")]) { $1 })
        #expect(second.status == 0, "\(second)")
        #expect(world.rows("apply2.csv").allSatisfy { $0["result"] == "skipped-caller" })
        let list = try BuiltBinary.run(
            ["wallet", "list", "--home", world.home.path] + (served ? ["--core", world.core] : []))
        #expect(list.status == 0, "the caller still works: \(list)")
    }

    /// The job's own report rendered and printed (scripts/render-report.sh): the demo's apps, wallet
    /// references and every column are on paper.
    static func renderInChromium(_ html: String) throws {
        let page = try String(contentsOfFile: html, encoding: .utf8)
        guard let rendered = try RenderedReport.render(page, name: "usage-report-job") else { return }
        #expect(rendered.screenshot.count > 20_000, "the screenshot is not blank")
        for text in ["Period: none", "Payroll Bot", "demo-eth-1", "POL", "revoked", "expires", "wallet_reference"] {
            #expect(rendered.printedText.contains(text), "the printed report has \(text)")
        }
    }
}
