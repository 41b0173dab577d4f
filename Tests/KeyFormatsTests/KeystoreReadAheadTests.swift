import Foundation
import Synchronization
import TestSupport
import Testing
import WalletCrypto

@testable import KeyFormats

/// The read-ahead keeps every slot of the pool busy even when asked for one record at a time, keeps
/// the list's order and its rejects, stays within its bound, and stops when its task is cancelled.
@Suite struct KeystoreReadAheadTests {
    /// `count` light keystores (scrypt n = 2, password "foo"), ks-00.json onwards, alternating the geth
    /// 30- and 31-byte key vectors; returns their paths in name order and the address each must give.
    static func writeKeystores(_ count: Int, in dir: TestDirectory) throws -> (paths: [String], addresses: [String]) {
        let v3 =
            try Fixtures.json("vectors/geth_accounts_keystore_testdata_v3_test_vector.json") as! [String: [String: Any]]
        var paths: [String] = []
        var addresses: [String] = []
        for index in 0..<count {
            let test = v3[index % 2 == 0 ? "30_byte_key" : "31_byte_key"]!
            #expect(test["password"] as? String == "foo")
            let name = String(format: "ks-%02d.json", index)
            paths.append(try dir.write(name, Array(try JSONSerialization.data(withJSONObject: test["json"]!))))
            let priv = Hex.decode(test["priv"] as! String)!
            addresses.append(
                try Secp256k1.PrivateKey(SecretBytes([UInt8](repeating: 0, count: 32 - priv.count) + priv))
                    .ethereumAddress.checksummed)
        }
        try dir.write("password", "foo\n")
        return (paths, addresses)
    }

    @Test func keepsEverySlotBusyWhenAskedForOneRecord() async throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let (paths, addresses) = try Self.writeKeystores(6, in: dir)
        let barrier = DecryptionBarrier(width: 2)
        let pool = KeystoreDecryptionPool(
            configuration: .init(maxConcurrent: 2), decryptionWillStart: { barrier.arrive($0) })
        let reader = KeystoreReadAhead(
            paths: paths, passwords: .file(dir.path + "/password"), pool: pool, readAhead: 2)

        var records = try await reader.next(1)
        #expect(records.count == 1)
        // The first decryption passes the barrier only once a second one runs beside it (on its own thread
        // or paired on the same one): asked for one record, the reader had started the next ones too.
        #expect(barrier.widthReached)
        #expect(!barrier.timedOut)
        // Handed one record, it keeps two more started (its bound), and they reach the pool's
        // threads without another call.
        #expect(reader.started == 3)
        #expect(await barrier.waitForArrivals(3))
        while true {
            let more = try await reader.next(2)
            if more.isEmpty { break }
            records += more
            #expect(reader.started <= records.count + 2)
        }
        #expect(records.map(\.source) == paths.map { DirectoryListing.fileName(of: $0) })
        for (record, address) in zip(records, addresses) {
            #expect(try record.result.get().address == address, "\(record.source)")
        }
        #expect(reader.remaining == 0)
        #expect(pool.peakSlotsInUse == 2)
    }

    @Test func keepsTheListOrderAndItsRejects() async throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        var (paths, _) = try Self.writeKeystores(5, in: dir)
        let v3 =
            try Fixtures.json("vectors/geth_accounts_keystore_testdata_v3_test_vector.json") as! [String: [String: Any]]
        // Another password than "foo": a MAC mismatch. Not JSON: a format error.
        paths.insert(
            try dir.write(
                "ks-01a.json",
                Array(try JSONSerialization.data(withJSONObject: v3["wikipage_test_vector_pbkdf2"]!["json"]!))),
            at: 2)
        paths.insert(try dir.write("ks-03a.json", "{not json"), at: 5)
        for readAhead in [1, 3, 10] {
            let pool = KeystoreDecryptionPool(configuration: .init(maxConcurrent: 2))
            let reader = KeystoreReadAhead(
                paths: paths, passwords: .file(dir.path + "/password"), pool: pool, readAhead: readAhead)
            var records: [KeyRecord] = []
            while true {
                let more = try await reader.next(2)
                if more.isEmpty { break }
                records += more
            }
            #expect(records.map(\.source) == paths.map { DirectoryListing.fileName(of: $0) })
            #expect(records[2].result.failure?.code == .wrongPassword)
            #expect(
                records[2].result.failure?.description.contains(
                    "ks-01a.json: wrong password or corrupted file (MAC mismatch)") == true)
            #expect(records[5].result.failure?.code == .malformedJSON)
            #expect(records[5].result.failure?.description.contains("ks-03a.json") == true)
            #expect(records.filter { (try? $0.result.get()) != nil }.count == 5)
        }
    }

    @Test func stopsWhenItsTaskIsCancelled() async throws {
        let dir = try TestDirectory()
        defer { dir.remove() }
        let (paths, _) = try Self.writeKeystores(4, in: dir)
        let pool = KeystoreDecryptionPool(configuration: .init(maxConcurrent: 1))
        let passwords = PasswordSource.file(dir.path + "/password")
        let cancelled = await Task {
            let reader = KeystoreReadAhead(paths: paths, passwords: passwords, pool: pool)
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await reader.next(4)
                return false
            } catch {
                return error is CancellationError
            }
        }.value
        #expect(cancelled)
        // No slot was kept by the cancelled reader's decryptions.
        let reader = KeystoreReadAhead(paths: paths, passwords: passwords, pool: pool)
        #expect(try await reader.next(10).count == 4)
        #expect(pool.peakSlotsInUse == 1)
    }
}

/// Holds each decryption at its start until `width` have started (so that many run at once), or
/// until a safety timeout, which the test then reports.
final class DecryptionBarrier: Sendable {
    private struct State {
        var arrivals = 0
        var timedOut = false
    }
    private let width: Int
    private let state = Mutex(State())
    private let condition = NSCondition()

    init(width: Int) { self.width = width }

    var widthReached: Bool { state.withLock { $0.arrivals >= width } }
    var timedOut: Bool { state.withLock { $0.timedOut } }

    /// On a decryption thread, before the KDF: `count` decryptions (2 for a pair) arrive.
    func arrive(_ count: Int) {
        let deadline = Date(timeIntervalSinceNow: 60)
        condition.lock()
        defer { condition.unlock() }
        state.withLock { $0.arrivals += count }
        condition.broadcast()
        while !widthReached {
            if !condition.wait(until: deadline) {
                state.withLock { $0.timedOut = true }
                return
            }
        }
    }

    /// Polls (safety timeout 60 s) until `count` decryptions have started.
    func waitForArrivals(_ count: Int) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while state.withLock({ $0.arrivals }) < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
