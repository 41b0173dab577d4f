import Foundation
import TestSupport
import Testing
import WalletCrypto

@testable import KeyFormats

/// The pool's sizing rule, bounded concurrency, records with passwords from a map, kept scrypt memory, and
/// cancellation.
@Suite struct KeystoreDecryptionPoolTests {
    @Test func sizing() {
        let perJob = KeystoreDecryptionPool.defaultPerJobMemory
        #expect(KeystoreDecryptionPool.concurrency(cores: 8, availableMemory: 1 << 30, perJobMemory: perJob) == 3)
        #expect(KeystoreDecryptionPool.concurrency(cores: 2, availableMemory: 64 << 30, perJobMemory: perJob) == 4)
        #expect(KeystoreDecryptionPool.concurrency(cores: 8, availableMemory: 100 << 20, perJobMemory: perJob) == 1)
        #expect(KeystoreDecryptionPool.concurrency(cores: 4, availableMemory: nil, perJobMemory: perJob) == 8)
        let automatic = KeystoreDecryptionPool.Configuration.automatic()
        #expect(automatic.maxConcurrent >= 1)
        #expect(automatic.maxConcurrent <= 2 * ProcessInfo.processInfo.activeProcessorCount)
    }

    @Test func weights() async throws {
        let pool = KeystoreDecryptionPool(configuration: .init(maxConcurrent: 4))
        let v1 = try EncryptedKeystore(
            contentsOf: Fixtures.url("vectors/geth_accounts_keystore_testdata_very-light-scrypt.json").path)
        #expect(pool.weight(of: v1) == 1)
        let heavy = try EncryptedKeystore(
            json: Data(
                #"{"version":3,"crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"00000000000000000000000000000000"},"ciphertext":"00","kdf":"scrypt","kdfparams":{"n":1048576,"r":8,"p":1,"dklen":32,"salt":"00"},"mac":"0000000000000000000000000000000000000000000000000000000000000000"}}"#
                    .utf8))
        #expect(heavy.kdfMemory > 1 << 30)
        #expect(pool.weight(of: heavy) == 4)
        // Above maxScryptMemory (1 GiB by default): refused before any work.
        await #expect(throws: KeyFormatError(.scryptMemoryLimit, "")) {
            _ = try await pool.decrypt(heavy, password: SecretBytes([]))
        }
    }

    /// Writes the light vectors as keystore files with a password map and decrypts them all.
    @Test func decryptsADirectoryWithinTheLimit() async throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let v3 =
            try Fixtures.json("vectors/geth_accounts_keystore_testdata_v3_test_vector.json") as! [String: [String: Any]]
        var map: [String: Any] = [:]
        var expected: [String: String] = [:]
        var copies = 0
        // 30- and 31-byte keys use scrypt n = 2: copy each several times under different names.
        for name in ["30_byte_key", "31_byte_key"] {
            let test = v3[name]!
            for copy in 0..<4 {
                let file = "\(name)-\(copy).json"
                try dir.write(file, Array(try JSONSerialization.data(withJSONObject: test["json"]!)))
                try dir.write("\(file).pw", (test["password"] as! String) + "\n")
                map[file] = ["file": "\(file).pw"]
                let priv = Hex.decode(test["priv"] as! String)!
                expected[file] = try Secp256k1.PrivateKey(
                    SecretBytes([UInt8](repeating: 0, count: 32 - priv.count) + priv)
                )
                .ethereumAddress.checksummed
                copies += 1
            }
        }
        try dir.write("broken.json", "{not json")
        try dir.write("wrong.json", Array(try JSONSerialization.data(withJSONObject: v3["30_byte_key"]!["json"]!)))
        try dir.write("wrong.pw", "not the password\n")
        map["broken.json"] = ["file": "wrong.pw"]
        map["wrong.json"] = ["file": "wrong.pw"]
        let mapPath = try dir.write("passwords.json", Array(try JSONSerialization.data(withJSONObject: map)))
        let passwords = PasswordSource.map(try PasswordMap(contentsOf: mapPath))

        let pool = KeystoreDecryptionPool(configuration: .init(maxConcurrent: 2))
        let listing = try DirectoryListing(directory: dir.path)
        let keystores = listing.entries.filter { $0.name.hasSuffix(".json") && $0.name != "passwords.json" }
        #expect(keystores.count == copies + 2)
        let records = try await withThrowingTaskGroup(of: KeyRecord.self) { group in
            for entry in keystores {
                group.addTask { try await pool.decryptFile(at: entry.path, passwords: passwords) }
            }
            var all: [KeyRecord] = []
            for try await record in group { all.append(record) }
            return all
        }
        #expect(records.count == keystores.count)
        for record in records {
            switch record.source {
            case "broken.json": #expect(record.result.failure?.code == .malformedJSON)
            case "wrong.json":
                #expect(record.result.failure?.code == .wrongPassword)
                #expect(
                    record.result.failure?.description.contains(
                        "wrong.json: wrong password or corrupted file (MAC mismatch)") == true)
            default: #expect(try record.result.get().address == expected[record.source], "\(record.source)")
            }
        }
        #expect(pool.peakSlotsInUse >= 1)
        #expect(pool.peakSlotsInUse <= 2)
        // Nine scrypt decryptions, at most two at a time, in at most two workspaces: the memory is kept.
        #expect(pool.workspacesCreated >= 1)
        #expect(pool.workspacesCreated <= 2)
    }

    /// A file's key derivation is reported as run when it ran, right or wrong password, and not when the
    /// file was refused before it (unreadable JSON, no password, a scrypt above the pool's memory limit).
    @Test func reportsWhetherTheDerivationRan() async throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let v3 =
            try Fixtures.json("vectors/geth_accounts_keystore_testdata_v3_test_vector.json") as! [String: [String: Any]]
        let light = v3["30_byte_key"]!
        let document = Array(try JSONSerialization.data(withJSONObject: light["json"]!))
        try dir.write("good.json", document)
        try dir.write("wrong.json", document)
        try dir.write("broken.json", "{not json")
        try dir.write(
            "heavy.json", Array(try JSONSerialization.data(withJSONObject: v3["wikipage_test_vector_scrypt"]!["json"]!))
        )
        try dir.write("good.pw", (light["password"] as! String) + "\n")
        try dir.write("wrong.pw", "not the password\n")
        let map: [String: Any] = [
            "good.json": ["file": "good.pw"], "wrong.json": ["file": "wrong.pw"], "broken.json": ["file": "good.pw"],
            "heavy.json": ["file": "good.pw"],
        ]
        let mapPath = try dir.write("passwords.json", Array(try JSONSerialization.data(withJSONObject: map)))
        let passwords = PasswordSource.map(try PasswordMap(contentsOf: mapPath))
        // The wiki page's keystore (n = 2^18, r = 1) needs 32 MiB of scrypt: above this pool's limit.
        let pool = KeystoreDecryptionPool(configuration: .init(maxConcurrent: 2, maxScryptMemory: 1 << 20))
        var derived: [String: Bool] = [:]
        var codes: [String: String] = [:]
        for name in ["good.json", "wrong.json", "broken.json", "heavy.json", "missing.json"] {
            let (record, ran) = try await pool.decryptFileCountingDerivation(
                at: dir.path + "/" + name, passwords: passwords)
            derived[name] = ran
            codes[name] = record.result.failure.map { "\($0.code)" } ?? "imported"
        }
        #expect(
            derived == [
                "good.json": true, "wrong.json": true, "broken.json": false, "heavy.json": false, "missing.json": false,
            ])
        #expect(codes["good.json"] == "imported" && codes["wrong.json"] == "\(KeyFormatError.Code.wrongPassword)")
        #expect(codes["heavy.json"] != "imported" && codes["broken.json"] == "\(KeyFormatError.Code.malformedJSON)")
    }

    /// Scrypt keystores with the same n and r leave in pairs and each gets its own key; one with another
    /// n, and the last of an odd count, run alone after the pairing wait. With pairing switched off
    /// (`keystore-pairs` in `WALLETOPS_TUNING_OFF`) every one runs alone, to the same keys.
    @Test(arguments: [true, false]) func matchingScryptKeystoresRunInPairs(pairs: Bool) async throws {
        let v3 =
            try Fixtures.json("vectors/geth_accounts_keystore_testdata_v3_test_vector.json") as! [String: [String: Any]]
        // 30_byte_key and 31_byte_key: scrypt n = 2, r = 8; the wiki page's: n = 2^18, r = 1, p = 8.
        var jobs: [(keystore: EncryptedKeystore, password: SecretBytes, address: String)] = []
        for (name, copies) in [("30_byte_key", 3), ("31_byte_key", 2), ("wikipage_test_vector_scrypt", 1)] {
            let test = v3[name]!
            let keystore = try EncryptedKeystore(json: JSONSerialization.data(withJSONObject: test["json"]!))
            let priv = Hex.decode(test["priv"] as! String)!
            let address = try Secp256k1.PrivateKey(SecretBytes([UInt8](repeating: 0, count: 32 - priv.count) + priv))
                .ethereumAddress.checksummed
            for _ in 0..<copies {
                jobs.append((keystore, SecretBytes(Array((test["password"] as! String).utf8)), address))
            }
        }
        // Six slots: every job holds one at once; a long wait, so that a loaded machine still pairs them.
        let pool = KeystoreDecryptionPool(
            configuration: .init(maxConcurrent: 6, pairingWait: .seconds(2), pairsDecryptions: pairs))
        let keys = try await Self.decryptAtOnce(jobs.map { ($0.keystore, $0.password) }, on: pool)
        for (index, job) in jobs.enumerated() { #expect(keys[index]?.address == job.address, "job \(index)") }
        // Five keystores with n = 2, r = 8: two pairs and one alone; the wiki page's alone.
        #expect(pool.pairsRun == (pairs ? 2 : 0))
    }

    /// Every keystore decrypted on `pool` at once, each key by its position.
    static func decryptAtOnce(
        _ jobs: [(keystore: EncryptedKeystore, password: SecretBytes)], on pool: KeystoreDecryptionPool
    ) async throws -> [Int: ParsedKey] {
        try await withThrowingTaskGroup(of: (Int, ParsedKey).self) { group in
            for (index, job) in jobs.enumerated() {
                group.addTask { (index, try await pool.decrypt(job.keystore, password: job.password)) }
            }
            var keys: [Int: ParsedKey] = [:]
            for try await (index, key) in group { keys[index] = key }
            return keys
        }
    }

    /// Six PBKDF2 keystores (262,144 rounds each) queued at once on two slots run two at a time.
    @Test func concurrencyIsBounded() async throws {
        let json =
            try Fixtures.json("vectors/ethereum_tests_KeyStoreTests_basic_tests.json") as! [String: [String: Any]]
        let names = ["test1", "evilnonce", "python_generated_test_with_odd_iv"]
        let jobs = try (0..<6).map { index in
            let test = json[names[index % 3]]!
            return (
                keystore: try EncryptedKeystore(json: JSONSerialization.data(withJSONObject: test["json"]!)),
                password: SecretBytes(Array((test["password"] as! String).utf8)), priv: test["priv"] as! String
            )
        }
        let pool = KeystoreDecryptionPool(configuration: .init(maxConcurrent: 2))
        let keys = try await Self.decryptAtOnce(jobs.map { ($0.keystore, $0.password) }, on: pool)
        for (index, job) in jobs.enumerated() { #expect(keys[index]?.secret == SecretBytes(Hex.decode(job.priv)!)) }
        #expect(pool.peakSlotsInUse == 2)
    }

    @Test func cancelledWaitersLeaveTheQueue() async throws {
        let keystore = try EncryptedKeystore(
            contentsOf: Fixtures.url("vectors/geth_accounts_keystore_testdata_very-light-scrypt.json").path)
        let pool = KeystoreDecryptionPool(configuration: .init(maxConcurrent: 1))
        let task = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 { group.addTask { _ = try await pool.decrypt(keystore, password: SecretBytes([])) } }
                try await group.waitForAll()
            }
        }
        task.cancel()
        _ = await task.result
        // The pool still works afterwards: no slot was leaked by a cancelled waiter.
        let key = try await pool.decrypt(keystore, password: SecretBytes([]))
        #expect(key.address.lowercased() == "0x45dea0fb0bba44f4fcf290bba71fd57d7117cbb8")
        #expect(pool.peakSlotsInUse == 1)
    }
}
