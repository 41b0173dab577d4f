import Foundation
import TestSupport
import Testing

/// A directory of 40 keystores (real scrypt, n = 2^14 r = 8 for test speed) imported in chunks of 2, 2 in
/// flight, SIGKILLed at a random moment mid-run and resumed: every key imported once, each output row
/// once, and the resumed run decrypting only the files without a checkpoint, of which only the ones in
/// flight at the kill had been imported already.
///
/// The kill lands when the output holds between 25 % and 75 % of the files, from the seed
/// `WALLETOPS_KILL_TEST_SEED` (printed for replay, random when unset).
@Suite(.serialized) struct KeystoreKillResumeTests {
    static let files = 40
    static let (batch, parallel) = (2, 2)
    /// A test password for test keys (never fund them).
    static let password = "kill-test-keystore-password"

    @Test(.timeLimit(.minutes(10))) func keystoreImportKilledAtRandomAndResumed() throws {
        let world = try JobsEndToEndTests.JobsWorld(served: false)
        let directory = world.path("keystores")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(Self.password.utf8).write(to: URL(fileURLWithPath: world.path("password.txt")))
        // eth-account writes the files (an independent implementation) and prints each key and address.
        let made = try PythonOracle.run(
            """
            import hashlib, json, os, sys
            from eth_account import Account
            folder, password, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
            for i in range(1, count + 1):
                key = hashlib.sha256(b"walletops keystore kill test %d" % i).hexdigest()
                document = Account.encrypt(key, password, kdf="scrypt", iterations=2**14)
                assert document["crypto"]["kdfparams"]["r"] == 8
                name = "ks-%02d.json" % i
                with open(os.path.join(folder, name), "w") as out:
                    json.dump(document, out)
                print(name, key, Account.from_key(key).address)
            """, arguments: [directory, Self.password, String(Self.files)])
        let lines = made.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        try #require(lines.count == Self.files && lines.allSatisfy { $0.count == 3 })
        let addresses = Dictionary(uniqueKeysWithValues: lines.map { ($0[0], $0[2]) })
        let keys = lines.map { $0[1] }

        let arguments = [
            "run", Fixtures.repositoryRoot.appendingPathComponent("jobs/import-keys.yaml").path, "--home",
            world.home.path, "--var", "input=\(directory)", "--var", "format=keystore-dir", "--var",
            "password_file=\(world.path("password.txt"))", "--var", "output=\(world.path("out.csv"))", "--var",
            "rejects=\(world.path("rejects.csv"))", "--var", "core=", "--var", "batch=\(Self.batch)", "--var",
            "parallel=\(Self.parallel)",
        ]
        let seed =
            UInt64(ProcessInfo.processInfo.environment["WALLETOPS_KILL_TEST_SEED"] ?? "")
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("kill moment seed \(seed) (WALLETOPS_KILL_TEST_SEED)")
        var moments = SeededMoments(seed: seed)
        let target = Self.files * (25 + moments.next(below: 51)) / 100
        let seen = try world.killMidRun(
            arguments, round: 1, output: world.path("out.csv"), target: target, poll: .milliseconds(2), inPlace: true,
            rows: JobsKillResumeTests.dataRows)
        let importedBeforeResume = try CreateWalletsKillResumeTests.wallets(world).count

        let final = try BuiltBinary.run(arguments, directory: world.scratch)
        #expect(final.status == 0, "\(final)")
        let report = try RunReportFile(of: final)
        #expect(report.count("succeeded") == Self.files && report.count("rejected") == 0)
        let resumed = try #require(report.count("resumed"))
        #expect(resumed < Self.files, "the resumed run had work left")
        // scrypt ran once per file without a checkpoint, never for one the killed run finished; of those files
        // only the ones in flight at the kill had been imported already.
        let (decrypted, found) = (report.work("decrypted"), report.work("found"))
        // Rows written but not yet checkpointed at the kill are truncated and done again (docs/engine.md
        // "Output sinks"): each was made already, so the resumed run finds it; the output is ahead of
        // the checkpoint by no more than that.
        #expect(
            seen - resumed <= found,
            "resumed \(resumed), \(seen) were in the output at the kill, \(found) found done")
        print(
            "resumed run: \(resumed) files resumed, decrypted \(decrypted), found \(found) (decrypted and sent again)")
        #expect(decrypted == Self.files - resumed, "decrypted \(decrypted), \(Self.files - resumed) files were left")
        #expect(report.work("sent") == decrypted)
        #expect(found == importedBeforeResume - resumed, "the core had \(importedBeforeResume), \(resumed) resumed")
        #expect(report.work("imported") == Self.files - importedBeforeResume)
        #expect(
            found <= Self.batch * Self.parallel,
            "\(found) files decrypted and sent again, more than the \(Self.parallel) x \(Self.batch) in flight")

        let rows = JobsEndToEndTests.parseCSV(world.read("out.csv"))
        #expect(rows.count == Self.files)
        #expect(rows.map { $0["source"] ?? "" } == addresses.keys.sorted(), "each file once, in order")
        for row in rows { #expect(row["address"] == addresses[row["source"] ?? ""], "\(row)") }
        #expect(JobsEndToEndTests.parseCSV(world.read("rejects.csv")).isEmpty)
        let listed = try CreateWalletsKillResumeTests.wallets(world)
        #expect(listed.count == Self.files, "exactly one wallet per key")
        #expect(Set(listed.map { $0["address"] ?? "" }) == Set(addresses.values))
        try JobsEndToEndTests.expectNoSecrets(
            keys: keys, passwords: [Self.password], in: [world.home], outputs: [final])
    }
}
