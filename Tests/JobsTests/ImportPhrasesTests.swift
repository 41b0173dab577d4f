import Foundation
import KeyFormats
import OMSCore
import OMSProtocol
import Runner
import TestSupport
import Testing
import TextFormats
import WalletCrypto

@testable import Jobs

/// `format: mnemonic-csv` through the engine against a real embedded core and its attested transport:
/// each phrase row becomes one row of the run per account, imported once with the address eth-account
/// derives, refusals by position only, and no phrase, passphrase, seed or key left in any file.
@Suite struct ImportPhrasesTests {
    /// Six eth-account phrases and the addresses `Account.from_mnemonic` gives on the rows' paths.
    static func oraclePhrases() throws -> [[String: Any]] {
        let script = """
            import json
            from eth_account import Account
            Account.enable_unaudited_hdwallet_features()
            rows = [
                (12, "", "ethereum", [0, 1, 2]),
                (24, "", "ledger-live-ethereum", [0, 1]),
                (15, "correct horse", "ethereum", [0]),
                (12, "", "m/44'/60'/0'/0/{i}", [0, 4]),
                (18, "", "m/44'/60'/7'/0/5", [0]),
                (12, "", "ethereum", [3]),
            ]
            out = []
            for words, passphrase, path, indices in rows:
                _, phrase = Account.create_with_mnemonic(num_words=words)
                def full(i):
                    if path == "ethereum": return f"m/44'/60'/0'/0/{i}"
                    if path == "ledger-live-ethereum": return f"m/44'/60'/{i}'/0/0"
                    return path.replace("{i}", str(i))
                accounts = [Account.from_mnemonic(phrase, passphrase, full(i)) for i in indices]
                out.append({"phrase": phrase, "passphrase": passphrase, "path": path, "indices": indices,
                            "addresses": [a.address for a in accounts], "keys": [a.key.hex() for a in accounts]})
            print(json.dumps(out))
            """
        return try JSONSerialization.jsonObject(with: Data(try PythonOracle.run(script).utf8)) as! [[String: Any]]
    }

    /// A CSV cell: quoted when it holds a comma or a quote.
    static func cell(_ text: String) -> String {
        text.contains(",") || text.contains("\"")
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    @Test func phrasesImportTheirAccountsOnceAndLeaveNoSecret() async throws {
        let directory = try ImportKeysActionTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases = try Self.oraclePhrases()
        // Rows 1-6: the oracle's phrases (count or indices as the case says; row 3 scans for its expected
        // address); row 7 a copy of row 1's
        // phrase (its accounts are duplicates); row 8 an unknown word at position 5; row 9 a bad checksum
        // (checksum: twelve times abandon); row 10 two Solana accounts of row 2's phrase on Phantom's layout.
        var lines = ["mnemonic,passphrase,path,count,indices,reference,type,expected_address"]
        for (index, item) in cases.enumerated() {
            let indices = item["indices"] as! [Int]
            let useCount = indices == Array(0..<indices.count) && indices.count > 1
            let count = useCount ? String(indices.count) : ""
            let list = useCount || indices == [0] ? "" : Self.cell(indices.map(String.init).joined(separator: ","))
            let expected = index == 2 ? (item["addresses"] as! [String])[0] : ""
            lines.append(
                [
                    item["phrase"] as! String, item["passphrase"] as! String, item["path"] as! String, count, list,
                    "legacy-\(index + 1)", "ethereum", expected,
                ].joined(separator: ","))
        }
        let first = cases[0]["phrase"] as! String
        lines.append("\(first),,ethereum,3,,copy,ethereum,")
        var words = first.split(separator: " ").map(String.init)
        words[4] = "qwertyuiop"
        lines.append("\(words.joined(separator: " ")),,,,,,ethereum,")
        // Zero entropy with checksum bits 0000: SHA-256 of 16 zero bytes starts 0x37, so the checksum fails.
        lines.append("\(Array(repeating: "abandon", count: 12).joined(separator: " ")),,,,,,ethereum,")
        lines.append("  \((cases[1]["phrase"] as! String).uppercased())  ,,phantom,2,,sol,,")
        let input = directory.appendingPathComponent("phrases.csv").path
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: input))

        let home = StoredCredentialTests.temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let project = try WaasService.initialize(home: home, project: "local").project
        let connection = try CoreConnection.open(home: home, coreURL: nil)
        try await SignIn.development(
            email: "ops@example.com", connection: connection,
            publishableKey: try PublishableKey(project.publishableKey),
            lifetime: 3600
        ).save(home: home)
        let (_, _, client) = try CoreConnection.signedIn(home: home, coreURL: nil)
        let root = try String(contentsOf: home.attestationRootURL, encoding: .utf8)
        let transport = ImportTransport.automatic(
            client: client, verifier: AttestationVerifier(policy: try AttestationPolicy.development(rootPEM: root)))
        let output = directory.appendingPathComponent("out.csv").path
        let rejects = directory.appendingPathComponent("rej.csv").path
        let configuration = ImportKeysAction.Configuration(
            input: input, format: .mnemonicCSV, type: nil, passwords: nil, output: output, rejects: rejects,
            concurrency: 2, batchSize: 4)
        #expect(ImportItems.count(configuration) == 3 + 2 + 1 + 2 + 1 + 1 + 3 + 1 + 1 + 2)

        let stores = directory.appendingPathComponent("stores")
        let summary = try await ImportKeysActionTests.run(
            ImportKeysAction(configuration, transport: transport), store: stores)
        #expect(summary.succeeded == 12 && summary.rejected == 5 && summary.exitCode == 1)

        let out = CSVRecords.parse(try String(contentsOfFile: output, encoding: .utf8))
        #expect(out.first == ImportKeysAction.outputHeader)
        var expectedRows: [[String]] = []
        for (index, item) in cases.enumerated() {
            for (position, address) in (item["addresses"] as! [String]).enumerated() {
                let account = (item["indices"] as! [Int])[position]
                // Row 3 has an expected address and no count or indices: a scan, whose source is the path found.
                let source = index == 2 ? "3:m/44'/60'/0'/0/0" : "\(index + 1):\(account)"
                expectedRows.append([source, "legacy-\(index + 1)-\(account)", "ethereum", address])
            }
        }
        let ethereumRows = out.dropFirst().filter { $0[3] == "ethereum" }.map { [$0[0], $0[1], $0[3], $0[4]] }
        #expect(ethereumRows == expectedRows, "every account once, in input order, with eth-account's address")
        let solana = out.dropFirst().filter { $0[3] == "solana" }
        #expect(solana.map { $0[0] } == ["10:0", "10:1"] && solana.map { $0[1] } == ["sol-0", "sol-1"])

        let rej = CSVRecords.parse(try String(contentsOfFile: rejects, encoding: .utf8)).dropFirst()
        #expect(rej.map { $0[0] } == ["7:0", "7:1", "7:2", "8", "9"])
        #expect(rej.prefix(3).allSatisfy { $0[1].hasPrefix("duplicateKey: ") && $0[2] == "duplicate" })
        #expect(Array(rej)[3][1] == "unknownWord: word 5 is not in the BIP-39 English list")
        #expect(Array(rej)[4][1].hasPrefix("mnemonicChecksum: "))
        #expect(Array(rej)[3][2] == "validation")

        // Exactly once: the same input again (a new run) finds every account imported with its reference.
        let again = try await ImportKeysActionTests.run(
            ImportKeysAction(configuration, transport: transport), store: directory.appendingPathComponent("again"))
        #expect(again.succeeded == 12 && again.rejected == 5)
        let wallets = try await CoreConnection.allWallets(client)
        #expect(wallets.count == 12, "no wallet twice")
        #expect(Set(wallets.compactMap(\.reference)) == Set(out.dropFirst().map { $0[1] }))

        // No phrase, word sequence, passphrase, seed or key in the home, the outputs or the run stores.
        var needles: [[UInt8]] = []
        let phrases = cases.map { $0["phrase"] as! String }
        for phrase in phrases {
            let list = phrase.split(separator: " ")
            // Every run of three consecutive words, so a phrase split or reformatted is still found.
            for start in 0...(list.count - 3) {
                needles.append(Array(list[start..<start + 3].joined(separator: " ").utf8))
            }
            needles.append(Array(phrase.uppercased().utf8))
            let seed = try Mnemonic(phrase: SecretBytes(Array(phrase.utf8))).seed()
            needles.append(seed.unsafeCopy())
            needles.append(Array(Hex.encode(seed.unsafeCopy()).utf8))
        }
        needles.append(Array("correct horse".utf8))
        for item in cases {
            for key in item["keys"] as! [String] {
                let hex = key.hasPrefix("0x") ? String(key.dropFirst(2)) : key
                needles.append(Array(hex.utf8))
                needles.append(Array(hex.uppercased().utf8))
                needles.append(Hex.decode(hex)!)
            }
        }
        let solanaKeys = try PhraseAccounts.derive(
            try Mnemonic(phrase: SecretBytes(Array((cases[1]["phrase"] as! String).utf8))), passphrase: SecretBytes([]),
            type: .solana, scheme: DerivationScheme(.phantom), indices: [0, 1])
        for account in solanaKeys {
            let bytes = account.secret.secret.unsafeCopy()
            needles.append(bytes)
            needles.append(Array(Hex.encode(bytes).utf8))
            needles.append(Array(Base58.encode(bytes).utf8))
        }
        var scanned = 0
        for root in [home.url, directory] {
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
            while let url = enumerator?.nextObject() as? URL {
                guard url.path != input, (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                    let data = try? Data(contentsOf: url)
                else { continue }
                scanned += 1
                let bytes = [UInt8](data)
                for needle in needles where Self.contains(bytes, needle) {
                    Issue.record("a secret appears in \(url.lastPathComponent)")
                }
            }
        }
        #expect(scanned >= 6, "scanned \(scanned) files")
        // The scan can fail: the input itself holds the phrases.
        let inputBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: input)))
        #expect(needles.prefix(10).contains { Self.contains(inputBytes, $0) })
    }

    /// `mnemonic-dir`: a file per phrase, the job's path and count for every file, the passphrase from
    /// password_file; wallets `<file name>-<i>` with eth-account's addresses; an unreadable phrase is one
    /// reject named by the file and the word's position.
    @Test func aDirectoryOfPhraseFilesImportsEachFilesAccounts() async throws {
        let directory = try ImportKeysActionTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = """
            import json
            from eth_account import Account
            Account.enable_unaudited_hdwallet_features()
            out = []
            for words in [12, 24]:
                _, phrase = Account.create_with_mnemonic(num_words=words)
                out.append({"phrase": phrase, "addresses": [
                    Account.from_mnemonic(phrase, "dir pass", f"m/44'/60'/{i}'/0/0").address for i in range(2)]})
            print(json.dumps(out))
            """
        let cases = try JSONSerialization.jsonObject(with: Data(try PythonOracle.run(script).utf8)) as! [[String: Any]]
        let phrases = directory.appendingPathComponent("phrases")
        try FileManager.default.createDirectory(at: phrases, withIntermediateDirectories: true)
        try Data(((cases[0]["phrase"] as! String) + "\n").utf8).write(to: phrases.appendingPathComponent("alice.txt"))
        try Data((cases[1]["phrase"] as! String).utf8).write(to: phrases.appendingPathComponent("bob.txt"))
        var words = (cases[0]["phrase"] as! String).split(separator: " ").map(String.init)
        words[2] = "notaword"
        try Data(words.joined(separator: " ").utf8).write(to: phrases.appendingPathComponent("carol.txt"))
        let passphrase = directory.appendingPathComponent("passphrase.txt")
        try Data("dir pass\n".utf8).write(to: passphrase)
        var configuration = ImportKeysAction.Configuration(
            input: phrases.path, format: .mnemonicDirectory, type: .ethereum, passwords: .file(passphrase.path),
            output: directory.appendingPathComponent("out.csv").path,
            rejects: directory.appendingPathComponent("rej.csv").path, concurrency: 2, batchSize: 3)
        configuration.phrases = .init(path: "ledger-live-ethereum", count: "2")
        #expect(ImportItems.count(configuration) == 6)
        let core = FakeCore()
        let summary = try await ImportKeysActionTests.run(
            ImportKeysAction(configuration, transport: core.transport), in: directory)
        #expect(summary.succeeded == 4 && summary.rejected == 1)
        let out = CSVRecords.parse(try String(contentsOfFile: configuration.output, encoding: .utf8)).dropFirst()
        #expect(out.map { $0[0] } == ["alice.txt:0", "alice.txt:1", "bob.txt:0", "bob.txt:1"])
        #expect(out.map { $0[1] } == ["alice-0", "alice-1", "bob-0", "bob-1"])
        // The fake core names no real address: the keys it received give them.
        let sent = core.imported.values.sorted { ($0.reference ?? "") < ($1.reference ?? "") }.map(\.reference)
        #expect(sent == ["alice-0", "alice-1", "bob-0", "bob-1"])
        var derived: [String] = []
        for (key, wallet) in core.imported.sorted(by: { ($0.value.reference ?? "") < ($1.value.reference ?? "") }) {
            _ = wallet
            derived.append(try KeyParser.parse(SecretBytes(Array(key.utf8)), type: .ethereum, encoding: .text).address)
        }
        #expect(derived == (cases[0]["addresses"] as! [String]) + (cases[1]["addresses"] as! [String]))
        let rej = CSVRecords.parse(try String(contentsOfFile: configuration.rejects, encoding: .utf8)).dropFirst()
        #expect(rej.map { $0[0] } == ["carol.txt"])
        #expect(rej.first?[1] == "unknownWord: word 3 is not in the BIP-39 English list")
        #expect(rej.first.map { !$0.joined().contains("notaword") } == true)
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        while let found = haystack[index...].firstIndex(of: first), found + needle.count <= haystack.count {
            if haystack[found..<found + needle.count].elementsEqual(needle) { return true }
            index = found + 1
        }
        return false
    }
}

/// The import's items honour the engine's `ItemIterator` contract (a short read ends the input, docs/engine.md
/// "Stopping"): a phrase row's accounts, read ahead as the row is derived, never end a batch early, nor do
/// CSV keys; only the last read is short.
@Suite struct ImportItemsReadContractTests {
    @Test(arguments: [1, 2, 3, 5, 7]) func everyReadButTheLastIsFull(limit: Int) async throws {
        let directory = try ImportKeysActionTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // BIP-39's all-zero-entropy phrase (its checksum is right): 3 + 1 + 2 + 3 accounts = 9 rows of the run.
        let phrase = Array(repeating: "abandon", count: 11).joined(separator: " ") + " about"
        let phrases = directory.appendingPathComponent("phrases.csv").path
        try Data("mnemonic,count,reference\n\(phrase),3,a\n\(phrase),1,b\n\(phrase),2,c\n\(phrase),3,d\n".utf8)
            .write(to: URL(fileURLWithPath: phrases))
        let keys = directory.appendingPathComponent("keys.csv").path
        let hex = (1...9).map { String(repeating: "0", count: 63) + String($0) }
        try Data(("private_key\n" + hex.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: keys))
        for (input, format) in [(phrases, ImportKeysAction.Format.mnemonicCSV), (keys, .hexCSV)] {
            let configuration = ImportKeysAction.Configuration(
                input: input, format: format, type: .ethereum, passwords: nil,
                output: directory.appendingPathComponent("out.csv").path,
                rejects: directory.appendingPathComponent("rejects.csv").path, concurrency: 1, batchSize: 4)
            let iterator = ImportItems.source(configuration).makeIterator()
            var sizes: [Int] = []
            var keysRead: [String] = []
            while true {
                var batch: [WorkItem] = []
                try await iterator.next(upTo: limit, into: &batch)
                sizes.append(batch.count)
                keysRead += batch.map(\.key)
                if batch.count < limit { break }
            }
            #expect(keysRead.count == 9, "\(format): \(keysRead)")
            #expect(sizes.dropLast().allSatisfy { $0 == limit }, "\(format): \(sizes)")
            #expect(sizes.last == 9 % limit, "\(format): the short read is the end: \(sizes)")
            var after: [WorkItem] = []
            try await iterator.next(upTo: limit, into: &after)
            #expect(after.isEmpty, "\(format): nothing after the short read")
        }
    }
}
