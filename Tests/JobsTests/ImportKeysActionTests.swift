import Foundation
import KeyFormats
import OMSProtocol
import Runner
import Synchronization
import TestSupport
import Testing
import TextFormats
import WalletCrypto

@testable import Jobs

/// The import as a chunk step of the engine against a fake core: rows settled in input order, the first
/// row of a key wins whatever the batch size and concurrency, no key in any reason.
@Suite struct ImportKeysActionTests {
    static func configuration(
        _ input: String, output: String = "/dev/null", rejects: String = "/dev/null", parallel: Int = 8,
        batch: Int = 1000
    ) -> ImportKeysAction.Configuration {
        ImportKeysAction.Configuration(
            input: input, format: .hexCSV, type: nil, passwords: nil, output: output, rejects: rejects,
            concurrency: parallel, batchSize: batch)
    }

    /// The hex import of `input` with its output and rejects (`out.csv`, `rej.csv`) in `directory`.
    static func configuration(
        _ input: String, outputsIn directory: URL, parallel: Int = 8, batch: Int = 1000
    ) -> ImportKeysAction.Configuration {
        configuration(
            input, output: directory.appendingPathComponent("out.csv").path,
            rejects: directory.appendingPathComponent("rej.csv").path, parallel: parallel, batch: batch)
    }

    /// Writes `keys` as the `private_key` column of `keys.csv` in `directory`; returns its path.
    static func writeKeys(_ keys: [String], in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("keys.csv").path
        try Data(("private_key\n" + keys.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func exampleRowsAreValidatedAndDeduplicatedInOrder() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.repositoryRoot.appendingPathComponent("examples/keys-hex.csv").path
        let core = FakeCore()
        let action = ImportKeysAction(
            Self.configuration(input, outputsIn: directory, batch: 100),
            transport: core.transport)
        let summary = try await Self.run(action, in: directory)
        #expect(summary.succeeded == 3 && summary.rejected == 6 && summary.exitCode == 1)
        #expect(summary.steps.first?.total == 9, "the input's rows are the step's items")
        let output = CSVRecords.parse(try String(contentsOfFile: action.configuration.output, encoding: .utf8))
        #expect(output.dropFirst().map { $0[0] } == ["1", "2", "3"])
        #expect(output.dropFirst().map { $0[1] } == ["legacy-alice", "legacy-bob", "import-3"])
        let rejects = CSVRecords.parse(try String(contentsOfFile: action.configuration.rejects, encoding: .utf8))
        let codes = rejects.dropFirst().map { "\($0[1].prefix { $0 != ":" }) \($0[2])" }
        #expect(
            codes == [
                "wrongLength validation", "notHex validation", "zeroKey validation", "keyOutOfRange validation",
                "expectedAddressMismatch mismatch", "duplicateKey duplicate",
            ])
        #expect(rejects.last?[1] == "duplicateKey: the same key as 2")
        #expect(action.window.count == 0, "an answered chunk leaves the window")
    }

    /// Every bad-row type of the key formats is rejected with its code and class, nothing sent.
    @Test func everyBadRowTypeIsRejected() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = String(repeating: "1", count: 64)
        let rows: [(String, String)] = [
            (",,,", "emptyKey validation"),
            ("\(good.prefix(40)),,,", "wrongLength validation"),
            ("zz\(good.dropFirst(2)),,,", "notHex validation"),
            ("\(String(repeating: "0", count: 64)),,,", "zeroKey validation"),
            ("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141,,,", "keyOutOfRange validation"),
            ("\(good),\(String(repeating: "r", count: 129)),,", "referenceTooLong validation"),
            ("\(good),,bitcoin,", "unknownType validation"),
            ("\(good),,,0x1234", "invalidExpectedAddress validation"),
            ("\(good),,,0x2e427A79A11df5968a7716C95C70be5B76d2aE70", "expectedAddressMismatch mismatch"),
            ("\(good),,,,extra", "raggedRow format"),
            ("\"\(good)\"x,,,", "malformedQuote format"),
        ]
        let path = directory.appendingPathComponent("bad.csv").path
        let text = "private_key,reference,type,expected_address\n" + rows.map(\.0).joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let core = FakeCore()
        let action = ImportKeysAction(
            Self.configuration(path, outputsIn: directory), transport: core.transport)
        let summary = try await Self.run(action, core, in: directory)
        #expect(summary.rejected == rows.count && summary.succeeded == 0)
        let rejects = CSVRecords.parse(try String(contentsOfFile: action.configuration.rejects, encoding: .utf8))
        let found = rejects.dropFirst().map { "\($0[1].prefix { $0 != ":" }) \($0[2])" }
        #expect(found == rows.map(\.1))
        #expect(rejects.dropFirst().map { $0[0] } == (1...rows.count).map { String($0) })
        #expect(core.imported.isEmpty, "nothing is sent for a bad row")
        for line in rejects { #expect(!line.joined().contains(good), "no key in a reject") }
        print("bad-row types rejected: \(found.count)")
    }

    /// 1,000 rows, 300 distinct keys repeated at pseudo-random later rows: for every batch size and
    /// parallel = 4, each key is imported by its first row and every later row is a duplicate.
    @Test(arguments: [1, 7, 64, 250, 1000]) func theFirstRowOfAKeyWinsWhateverTheBatching(batch: Int) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = Generator(state: UInt64(batch))
        let distinct = (1...300).map { String(format: "%064x", $0 * 7919 + 1) }
        var keys = distinct
        while keys.count < 1000 { keys.insert(distinct.randomElement(using: &generator)!, at: keys.count) }
        keys[300...].shuffle(using: &generator)
        // Some duplicates land inside the first batches too.
        keys.swapAt(5, 400)
        let path = try Self.writeKeys(keys, in: directory)
        let core = FakeCore()
        let action = ImportKeysAction(
            Self.configuration(path, outputsIn: directory, parallel: 4, batch: batch),
            transport: core.transport)
        let summary = try await Self.run(action, core, in: directory)
        #expect(summary.succeeded == 300 && summary.rejected == 700)

        var first: [String: Int] = [:]
        for (row, key) in keys.enumerated() where first[key] == nil { first[key] = row + 1 }
        let output = CSVRecords.parse(try String(contentsOfFile: action.configuration.output, encoding: .utf8))
            .dropFirst()
        let rejects = CSVRecords.parse(try String(contentsOfFile: action.configuration.rejects, encoding: .utf8))
            .dropFirst()
        #expect(output.map { Int($0[0])! } == first.values.sorted(), "exactly the first rows are imported, in order")
        #expect(rejects.allSatisfy { $0[2] == "duplicate" })
        #expect(output.count + rejects.count == 1000)
        #expect(Set(rejects.map { $0[0] }).count == rejects.count, "each row once")
        #expect(core.imported.count == 300)
        #expect(core.imported.values.compactMap(\.reference).sorted() == first.values.map { "import-\($0)" }.sorted())
    }

    /// Keystores decrypted on the pool inside their chunk come out in file order whatever the chunk size: a
    /// wrong password, a broken file and a second copy of a key are rejects naming the file.
    @Test(arguments: [1, 2, 1000]) func keystoresKeepTheirOrderWhateverTheBatching(batch: Int) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let v3 =
            try Fixtures.json("vectors/geth_accounts_keystore_testdata_v3_test_vector.json") as! [String: [String: Any]]
        let light = try Data(contentsOf: Fixtures.url("vectors/geth_accounts_keystore_testdata_very-light-scrypt.json"))
        func write(_ name: String, _ data: Data) throws {
            try data.write(to: directory.appendingPathComponent(name))
        }
        let key30 = try JSONSerialization.data(withJSONObject: v3["30_byte_key"]!["json"]!)
        try write("a-30.json", key30)
        try write("b-31.json", try JSONSerialization.data(withJSONObject: v3["31_byte_key"]!["json"]!))
        try write("c-wrong.json", key30)
        try write("d-broken.json", Data("{not json".utf8))
        try write("e-light.json", light)
        try write("f-copy.json", key30)
        let passwords = directory.appendingPathComponent("passwords")
        try FileManager.default.createDirectory(at: passwords, withIntermediateDirectories: true)
        try Data("foo".utf8).write(to: passwords.appendingPathComponent("foo"))
        try Data("bar".utf8).write(to: passwords.appendingPathComponent("bar"))
        try Data().write(to: passwords.appendingPathComponent("empty"))
        let map: [String: Any] = [
            "a-30.json": ["file": "foo"], "b-31.json": ["file": "foo"], "c-wrong.json": ["file": "bar"],
            "d-broken.json": ["file": "foo"], "e-light.json": ["file": "empty"], "f-copy.json": ["file": "foo"],
        ]
        let mapPath = passwords.appendingPathComponent("map.json").path
        try JSONSerialization.data(withJSONObject: map).write(to: URL(fileURLWithPath: mapPath))
        let core = FakeCore()
        let action = ImportKeysAction(
            ImportKeysAction.Configuration(
                input: directory.path, format: .keystoreDirectory, type: nil,
                passwords: .map(try PasswordMap(contentsOf: mapPath)),
                output: directory.appendingPathComponent("out.csv").path,
                rejects: directory.appendingPathComponent("rej.csv").path, concurrency: 2, batchSize: batch),
            transport: core.transport)
        let summary = try await Self.run(action, core, in: directory)
        #expect(summary.succeeded == 3 && summary.rejected == 3)
        let output = CSVRecords.parse(try String(contentsOfFile: action.configuration.output, encoding: .utf8))
            .dropFirst()
        let rejects = CSVRecords.parse(try String(contentsOfFile: action.configuration.rejects, encoding: .utf8))
            .dropFirst()
        #expect(output.map { $0[0] } == ["a-30.json", "b-31.json", "e-light.json"])
        #expect(output.map { $0[1] } == ["a-30", "b-31", "e-light"])
        #expect(rejects.map { $0[0] } == ["c-wrong.json", "d-broken.json", "f-copy.json"])
        #expect(rejects.map { $0[2] } == ["decryption", "format", "duplicate"])
        #expect(rejects.first?[1] == "wrongPassword: wrong password or corrupted file (MAC mismatch)")
        #expect(core.imported.count == 3)
    }

    /// A rerun (a resumed import) settles every row the same way from the core's answers.
    @Test func aRerunSettlesFromTheCore() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = (1...50).map { String(format: "%064x", $0 * 104_729) } + [String(format: "%064x", 104_729)]
        let path = try Self.writeKeys(keys, in: directory)
        let core = FakeCore()
        let action = ImportKeysAction(
            Self.configuration(path, outputsIn: directory, parallel: 3, batch: 8),
            transport: core.transport)
        _ = try await Self.run(action, core, in: directory)
        let first = try String(contentsOfFile: action.configuration.output, encoding: .utf8)
        let firstRejects = try String(contentsOfFile: action.configuration.rejects, encoding: .utf8)
        core.failNextSends(2)  // two in-doubt chunks: sent again by the engine
        let again = try await Self.run(action, core, in: directory.appendingPathComponent("second"))
        #expect(again.succeeded == 50 && again.rejected == 1)
        #expect(try String(contentsOfFile: action.configuration.output, encoding: .utf8) == first)
        #expect(CSVRecords.parse(firstRejects).count == 2)
        // The later copy (row 51) is refused by the core the second time, not by the window.
        let rejects = CSVRecords.parse(try String(contentsOfFile: action.configuration.rejects, encoding: .utf8))
        #expect(rejects.dropFirst().map { $0[0] } == ["51"])
        #expect(core.imported.count == 50)
    }

    /// How one chunk is settled: a lost reply sends it again whole, a transient item refusal sends that
    /// item again alone, the core's duplicates and refusals become rejects of the right class.
    @Test func aChunkIsSettledFromTheCoresAnswers() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = (1...4).map { String(format: "%064x", $0 * 31) }
        let path = directory.appendingPathComponent("keys.csv").path
        let text = "private_key,reference\n" + keys.enumerated().map { "\($1),ref-\($0 + 1)" }.joined(separator: "\n")
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
        @Sendable func wallet(_ n: Int, reference: String) -> Wallet {
            Wallet(
                id: "wal_\(n)", address: "addr-\(n)", networkFamily: .evm, keyOrigin: .imported, reference: reference)
        }
        let calls = Mutex<[[String]]>([])
        let transport = ImportTransport { items in
            let call = calls.withLock { calls -> Int in
                calls.append(items.map(\.reference))
                return calls.count
            }
            if call == 1 { throw URLError(.networkConnectionLost) }  // in doubt: the whole chunk again
            if call == 2 {
                return [
                    .failed(WaasError(.internalUnavailable, "busy")),
                    .failed(WaasError(.addressAlreadyImported, "held elsewhere")),
                    .alreadyImported(wallet(3, reference: "someone-else")),
                    .failed(WaasError(.invalidRequest, "refused")),
                ]
            }
            return [.alreadyImported(wallet(1, reference: "ref-1"))]
        }
        let action = ImportKeysAction(
            Self.configuration(path, outputsIn: directory, parallel: 1, batch: 10),
            transport: transport)
        let summary = try await Self.run(action, in: directory)
        let all = (1...4).map { "ref-\($0)" }
        #expect(calls.withLock { $0 } == [all, all, ["ref-1"]], "only the transient item is sent again")
        #expect(summary.succeeded == 1 && summary.rejected == 3)
        let output = CSVRecords.parse(try String(contentsOfFile: action.configuration.output, encoding: .utf8))
        #expect(output.dropFirst().map { $0[2] } == ["wal_1"])
        let rejects = CSVRecords.parse(try String(contentsOfFile: action.configuration.rejects, encoding: .utf8))
        let classes = rejects.dropFirst().map { "\($0[0]) \($0[1].prefix { $0 != ":" }) \($0[2])" }
        #expect(classes == ["2 duplicateKey duplicate", "3 duplicateKey duplicate", "4 InvalidRequest service"])
    }

    /// The per-subject gate: one holder per key at a time, whatever the interleaving, and no entry left
    /// for an idle key (memory follows the requests in flight, not the subjects seen).
    @Test func theKeyedGateLetsOneHolderPerKeyInAtATime() async throws {
        let gate = KeyedSerialGate()
        let keys = ["alice", "bob", "carol"]
        let counts = KeyedOccupancy()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<60 {
                let key = keys[index % keys.count]
                group.addTask {
                    try await gate.withPermit(key) {
                        counts.inside.withLock {
                            let now = ($0[key]?.now ?? 0) + 1
                            $0[key] = (now, max(now, $0[key]?.most ?? 0))
                        }
                        await Task.yield()
                        counts.inside.withLock { $0[key]!.now -= 1 }
                        counts.entered.withLock { $0 += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counts.entered.withLock { $0 } == 60)
        #expect(counts.inside.withLock { state in keys.map { state[$0]?.most ?? 0 } } == [1, 1, 1])
        #expect(gate.activeKeys == 0)
    }

    /// Per key: holders inside now and the most at once; and how many entered in all.
    final class KeyedOccupancy: Sendable {
        let inside = Mutex([String: (now: Int, most: Int)]())
        let entered = Mutex(0)
    }

    /// Runs `action` (its configuration) against `core` as the engine runs the job's step.
    static func run(_ action: ImportKeysAction, _ core: FakeCore, in directory: URL) async throws -> RunSummary {
        try await run(ImportKeysAction(action.configuration, transport: core.transport), in: directory)
    }

    /// Runs `action` as a chunk step with the job's retry policy, checkpointed in a run store of its own
    /// (outside `directory`, which may be the input), removed afterwards.
    static func run(_ action: ImportKeysAction, in directory: URL) async throws -> RunSummary {
        let stores = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: stores) }
        return try await run(action, store: stores)
    }

    /// Runs `action` as the job's chunk step with its retry policy, its run store under `store` (kept, for
    /// a test that scans it).
    static func run(_ action: ImportKeysAction, store: URL) async throws -> RunSummary {
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        let runs = try RunStore(path: store.appendingPathComponent("runs.sqlite").path)
        let plan = RunPlan(
            name: "import",
            steps: [
                StepPlan(
                    id: "import", items: action.items!, action: action,
                    concurrency: action.configuration.concurrency,
                    retry: RetryPolicy(
                        maxAttempts: 6, initialBackoff: .milliseconds(1), retryOn: [.retryable, .inDoubt]),
                    failureBudget: .count(0))
            ], concurrency: 64)
        return try await Engine.run(
            plan: plan, store: runs, identity: RunIdentity(playbookName: "import", playbookHash: "h"))
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A fixed-seed generator so shuffles are the same on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }
}

/// A core that imports by secret (no curve work): the same secret again answers the existing wallet.
/// Batches finish out of order (each yields a pseudo-random number of times first).
final class FakeCore: Sendable {
    struct State {
        var imported: [String: Wallet] = [:]
        var failures = 0
        var sends = 0
    }
    let state = Mutex(State())

    var imported: [String: Wallet] { state.withLock { $0.imported } }

    /// The next `count` sends store their batch, then fail as if the reply were lost.
    func failNextSends(_ count: Int) { state.withLock { $0.failures = count } }

    var transport: ImportTransport {
        ImportTransport { items in
            let yields = self.state.withLock { state -> Int in
                state.sends += 1
                return (state.sends * 7919) % 13
            }
            for _ in 0..<yields { await Task.yield() }
            return try self.state.withLock { state in
                let replies = items.map { item -> ImportItemReply in
                    let id = item.secret.secret.withUnsafeBytes { Hex.encode(Array($0)) }
                    if let wallet = state.imported[id] { return .alreadyImported(wallet) }
                    let address = "addr-\(state.imported.count + 1)"
                    let wallet = Wallet(
                        id: "wal_\(state.imported.count + 1)", address: address, networkFamily: item.networkFamily,
                        keyOrigin: .imported, reference: item.reference)
                    state.imported[id] = wallet
                    return .imported(wallet)
                }
                if state.failures > 0 {
                    state.failures -= 1
                    throw URLError(.networkConnectionLost)
                }
                return replies
            }
        }
    }
}
