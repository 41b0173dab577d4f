import Foundation
import OMSProtocol
import SQLiteKit
import Testing
import WalletCrypto

@testable import OMSCore

/// Migrations 6 and 8: imported wallets' address keys live in a recent tier (each connection's memory
/// index of the wallets past the settled watermark) and a settled one, enclave-made wallets in neither.
/// A repeated import is refused whichever tier holds the first one and whichever connection stored it,
/// lookups use the settled tier's primary key (never a scan), and the writer settles keys without losing one.
@Suite struct ImportedAddressIndexTests {
    static func makeStore(_ tiers: AddressKeyTiers = AddressKeyTiers()) throws -> (CoreStore, URL) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "walletops-address-index-\(UUID().uuidString).db")
        let store = try CoreStore(url: url, addressKeyTiers: tiers)
        try store.sync { db in
            try db.execute(
                """
                INSERT INTO projects(id, name, publishable_key, environment, created_at)
                    VALUES ('prj_t', 't', 'pk_local_sdbx_t_k', 'development', 0);
                INSERT INTO accounts(id, project_id, issuer, subject, created_at) VALUES ('acc_1', 'prj_t', 'i', 's', 0);
                """)
        }
        return (store, url)
    }

    static func wallet(_ id: String, _ address: String, _ origin: KeyOrigin) -> WalletRecord {
        WalletRecord(
            seq: 0, id: id, accountId: "acc_1", type: .ethereum, address: address, reference: nil, keyOrigin: origin)
    }

    static func insertRefused(_ db: SQLiteDatabase, _ record: WalletRecord) throws -> Bool {
        do {
            _ = try db.insertWallet(record, project: "prj_t", sealedKey: [1], now: 1)
            return false
        } catch let error as WaasError where error.code == .addressAlreadyImported {
            return true
        }
    }

    @Test func importedWalletsAreIndexedAndEnclaveWalletsAreNot() async throws {
        let (store, url) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: url) }
        let imported = "0x" + String(repeating: "1c", count: 20)
        let made = "0x" + String(repeating: "2d", count: 20)
        let (repeatRefused, entries, plan, foundImported, foundMade) = try await store.write { db in
            _ = try db.insertWallet(Self.wallet("wal_i", imported, .imported), project: "prj_t", sealedKey: [1], now: 1)
            for index in 0..<50 {
                _ = try db.insertWallet(
                    Self.wallet("wal_m\(index)", made + "\(index)", .enclave), project: "prj_t", sealedKey: [1], now: 1)
            }
            let refused = try Self.insertRefused(db, Self.wallet("wal_again", imported, .imported))
            let entries =
                try db.recentAddressKeyCount()
                + Int(try db.scalarInt("SELECT count(*) FROM imported_address_keys") ?? 0)
            let plan = try db.rows(
                "EXPLAIN QUERY PLAN SELECT seq FROM wallets WHERE seq IN ("
                    + "SELECT seq FROM imported_address_keys WHERE address_key = 1) "
                    + "AND project_id = 'prj_t' AND address = 'x' ORDER BY seq LIMIT 1"
            ).map { "\($0)" }.joined(separator: " | ")
            return (
                refused, entries, plan, try db.importedWallet(address: imported, project: "prj_t")?.id,
                try db.importedWallet(address: made + "0", project: "prj_t")?.id
            )
        }
        #expect(repeatRefused, "a key imported twice is refused")
        #expect(entries == 1, "only the imported wallet has an address key entry")
        #expect(!plan.contains("SCAN"), "the lookup searches primary keys only: \(plan)")
        #expect(foundImported == "wal_i")
        #expect(foundMade == nil, "an enclave-made wallet is not an import's duplicate")
    }

    /// Address keys are stored (migration 5), so their definition may never change: the first 8 bytes,
    /// big-endian, of SHA-256 over project, a zero byte and the address: checked against the incremental
    /// hash (OpenSSL) and against one value computed by coreutils.
    @Test func theAddressKeyIsTheDocumentedHash() {
        var compared = 0
        for (project, address) in [
            ("prj_t", "0x" + String(repeating: "3e", count: 20)), ("", ""),
            ("prj_ü", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"),
            ("p", String(repeating: "z", count: 2000)),
        ] {
            var hash = SHA256()
            hash.update(data: Array(project.utf8) + [0] + Array(address.utf8))
            let expected = hash.finalize().prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            #expect(WalletAddressKey.of(project: project, address: address) == Int64(bitPattern: expected))
            compared += 1
        }
        #expect(compared == 4)
        // `printf 'prj_t\0abc' | sha256sum` (coreutils) = 17695b4f76937fbc5a3c...
        #expect(WalletAddressKey.of(project: "prj_t", address: "abc") == Int64(bitPattern: 0x1769_5b4f_7693_7fbc))
    }

    /// The address key is a 64-bit hash of project and address, so a key held by another address is a
    /// possible (if unlikely) hit of the existence probe: the wallet row decides, and the import goes on.
    @Test func aKeyHeldByAnotherAddressIsNoDuplicate() async throws {
        let (store, url) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: url) }
        let first = "0x" + String(repeating: "3e", count: 20)
        let second = "0x" + String(repeating: "4f", count: 20)
        let (found, refused, plan) = try await store.write { db in
            let stored = try db.insertWallet(
                Self.wallet("wal_a", first, .imported), project: "prj_t", sealedKey: [1], now: 1)
            // A collision, made by hand: the second address's key pointing at the first wallet.
            let key = WalletAddressKey.of(project: "prj_t", address: second)
            try db.execute(
                "INSERT INTO imported_address_keys(address_key, seq) VALUES (?, ?)",
                [.integer(key), .integer(stored.seq)])
            let found = try db.importedWallet(address: second, project: "prj_t")?.id
            let refused = try Self.insertRefused(db, Self.wallet("wal_b", second, .imported))
            let plan = try db.rows(
                "EXPLAIN QUERY PLAN SELECT EXISTS (SELECT 1 FROM imported_address_keys WHERE address_key = 1)"
            ).map { "\($0)" }.joined(separator: " | ")
            return (found, refused, plan)
        }
        #expect(found == nil, "another address's key is not this address's wallet")
        #expect(!refused, "the import of the second address goes on")
        #expect(
            !plan.contains("SCAN imported")
                && plan.components(separatedBy: "USING PRIMARY KEY (address_key=?)").count == 2,
            "the probe searches the settled tier's primary key only: \(plan)")
        let both = try await store.write { db in
            try db.importedWallet(address: second, project: "prj_t")?.id
        }
        #expect(both == "wal_b")
    }

    /// Small tiers so a few hundred imports settle several times: every key is settled once, under its own
    /// wallet, every wallet up to the watermark is settled, the recent tier stays near its limit, and
    /// duplicates are refused in both tiers.
    @Test func settlingMovesEveryKeyOnceAndKeepsDuplicatesRefused() async throws {
        let tiers = AddressKeyTiers(recentLimit: 64, chunk: 16, checkEvery: 32)
        let (store, url) = try Self.makeStore(tiers)
        defer { try? FileManager.default.removeItem(at: url) }
        let addresses = (0..<600).map { "0x" + String(format: "%040x", $0 &* 2_654_435_761 % 1_000_003) }
        for start in stride(from: 0, to: addresses.count, by: 20) {
            try await store.write(weight: 20) { db in
                for index in start..<(start + 20) {
                    _ = try db.insertWallet(
                        Self.wallet("wal_\(index)", addresses[index], .imported), project: "prj_t", sealedKey: [1],
                        now: 1)
                }
            }
        }
        let (recent, settled, distinct, found, refusedSettled, refusedRecent) = try await store.write { db in
            let recent = try db.recentAddressKeyCount()
            let settled = Int(try db.scalarInt("SELECT count(*) FROM imported_address_keys") ?? 0)
            // Distinct wallets whose own key is settled, and none missing below the watermark.
            let distinct = Int(
                try db.scalarInt(
                    "SELECT count(DISTINCT k.seq) FROM imported_address_keys AS k "
                        + "JOIN wallets AS w ON w.seq = k.seq AND w.address_key = k.address_key") ?? 0)
            let missing = try db.scalarInt(
                "SELECT count(*) FROM wallets WHERE seq <= (SELECT settled_through FROM address_key_settlements) "
                    + "AND seq NOT IN (SELECT seq FROM imported_address_keys)")
            #expect(missing == 0, "every wallet up to the watermark is settled")
            let found = try addresses.indices.filter {
                try db.importedWallet(address: addresses[$0], project: "prj_t")?.id == "wal_\($0)"
            }.count
            // The oldest key is long settled; the newest may still be recent.
            let settledRefused = try Self.insertRefused(db, Self.wallet("wal_a", addresses[0], .imported))
            let recentRefused = try Self.insertRefused(db, Self.wallet("wal_b", addresses[599], .imported))
            return (recent, settled, distinct, found, settledRefused, recentRefused)
        }
        #expect(recent + settled == 600 && distinct == settled, "each key in one tier: \(recent) + \(settled)")
        #expect(settled >= 500, "the writer settled keys as the recent tier filled: \(settled) settled")
        #expect(recent < tiers.recentLimit + tiers.checkEvery, "the recent tier stays near its limit: \(recent)")
        #expect(found == 600, "every wallet is found by its address")
        #expect(refusedSettled && refusedRecent)
    }

    /// A backlog in the recent tier (the pass a killed process left) moves a few chunks a look, between
    /// group commits, instead of holding the writes behind it until all of it moved; later looks drain it.
    @Test func aBacklogMovesAFewChunksALookAndDrains() async throws {
        let tiers = AddressKeyTiers(recentLimit: 64, chunk: 16, checkEvery: 32)
        #expect(tiers.chunksPerLook == 3, "two chunks keep pace with a look's 32 keys, one more drains")
        let (store, url) = try Self.makeStore(tiers)
        defer { try? FileManager.default.removeItem(at: url) }
        let addresses = (0..<480).map { "0x" + String(format: "%040x", $0 &* 2_654_435_761 % 1_000_003) }
        func insert(_ range: Range<Int>) async throws {
            try await store.write(weight: range.count) { db in
                for index in range {
                    _ = try db.insertWallet(
                        Self.wallet("wal_\(index)", addresses[index], .imported), project: "prj_t", sealedKey: [1],
                        now: 1)
                }
            }
        }
        // One write of 320 keys: one look, which moves three chunks and leaves the rest.
        try await insert(0..<320)
        let afterOneLook = try await store.write { db in try db.recentAddressKeyCount() }
        #expect(afterOneLook == 320 - 3 * 16, "one look moved \(320 - afterOneLook) keys")
        // Writes of a look's weight each: 32 keys come and 48 go a look, until the tier is under its limit.
        for start in stride(from: 320, to: 480, by: 32) { try await insert(start..<(start + 32)) }
        let drained = try await store.write { db in try db.recentAddressKeyCount() }
        #expect(drained == afterOneLook + 160 - 5 * 48, "five looks moved 240 keys: \(drained) recent")
        #expect(drained < afterOneLook)
    }

    /// A store opened over imported wallets past the watermark (a killed import's) reads its writer's index
    /// of them at open, on the writer's queue, so the first import's transaction (which every batch in
    /// flight waits on) does not.
    @Test func theWritersIndexOfRecentKeysIsReadAtOpen() async throws {
        let (store, url) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: url) }
        try await store.write(weight: 1) { db in
            for index in 0..<100 {
                _ = try db.insertWallet(
                    Self.wallet("wal_\(index)", "0x" + String(format: "%040x", index + 1), .imported),
                    project: "prj_t", sealedKey: [1], now: 1)
            }
        }
        let reopened = try CoreStore(url: url)
        // Read without a catch-up of its own: what the open left in the writer's index.
        let (recent, builds) = reopened.queue.sync { db in
            (db.recentAddressKeys.unsettledCount, db.recentAddressKeys.builds)
        }
        #expect(recent == 100 && builds == 1, "\(recent) recent keys in \(builds) builds")
        _ = store
    }

    /// The writer's filter of the settled keys: built once enough new keys were probed, kept up to date
    /// by the writer's own settles (so probes skip the settled tier), and never trusted once another
    /// connection (another process on the same home) has settled keys: a key it settled is refused.
    @Test func aFilterOfTheSettledKeysNeverHidesAnotherConnectionsSettle() async throws {
        let tiers = AddressKeyTiers(recentLimit: 1, chunk: 4_096, checkEvery: 1, filterBuildAfter: 1)
        let (store, url) = try Self.makeStore(tiers)
        defer { try? FileManager.default.removeItem(at: url) }
        let address: @Sendable (Int) -> String = { "0x" + String(format: "%040x", $0 &* 2_654_435_761 % 1_000_003) }
        for index in 0..<40 {
            try await store.write { db in
                _ = try db.insertWallet(
                    Self.wallet("wal_a\(index)", address(index), .imported), project: "prj_t", sealedKey: [1], now: 1)
            }
        }
        let (ownSettlesKeepItCurrent, recentAfterOwn) = try await store.write { db in
            let version = try db.scalarInt("SELECT version FROM address_key_settlements") ?? 0
            let filter = db.settledAddressKeyFilter
            return (filter.covers(version: version), try db.recentAddressKeyCount())
        }
        #expect(recentAfterOwn <= 1, "the writer settled its keys: \(recentAfterOwn) recent")
        #expect(ownSettlesKeepItCurrent, "the writer's own settles keep its filter up to date")

        // Another connection to the same file settles a key the first one's filter has never seen.
        let other = try CoreStore(url: url, addressKeyTiers: tiers)
        let key = address(1_000)
        try await other.write { db in
            _ = try db.insertWallet(Self.wallet("wal_b", key, .imported), project: "prj_t", sealedKey: [1], now: 1)
        }
        let settledByOther = try await other.write { db in
            try db.scalarInt(
                "SELECT count(*) FROM imported_address_keys WHERE address_key = ?",
                [.integer(WalletAddressKey.of(project: "prj_t", address: key))])
        }
        #expect(settledByOther == 1, "the other connection settled the key")

        let (refused, refusedOwn, coversAgain) = try await store.write { db in
            let refused = try Self.insertRefused(db, Self.wallet("wal_c", key, .imported))
            let refusedOwn = try Self.insertRefused(db, Self.wallet("wal_d", address(7), .imported))
            let version = try db.scalarInt("SELECT version FROM address_key_settlements") ?? 0
            let filter = db.settledAddressKeyFilter
            return (refused, refusedOwn, filter.covers(version: version))
        }
        #expect(refused, "a key another connection settled is refused, whatever this filter held")
        #expect(refusedOwn, "a key this connection settled is refused")
        #expect(coversAgain, "the filter was built again at the new version")
    }

    /// A settle whose transaction rolls back leaves the table at its old version; the filter, which took
    /// the keys and the new random version, no longer matches and is not used.
    @Test func aRolledBackSettleLeavesTheFilterOutOfDate() async throws {
        let tiers = AddressKeyTiers(recentLimit: 1_000_000, chunk: 4_096, checkEvery: 1_000_000, filterBuildAfter: 1)
        let (store, url) = try Self.makeStore(tiers)
        defer { try? FileManager.default.removeItem(at: url) }
        struct Abort: Error {}
        let (before, coveredBefore, after, coveredAfter, settled) = try store.queue.sync { db in
            let version = { try db.scalarInt("SELECT version FROM address_key_settlements") ?? 0 }
            let filter = db.settledAddressKeyFilter
            try db.transaction {
                _ = try db.insertWallet(
                    Self.wallet("wal_1", "0x" + String(repeating: "5a", count: 20), .imported), project: "prj_t",
                    sealedKey: [1], now: 1)
            }
            let before = try version()
            let coveredBefore = filter.covers(version: before)
            _ = try? db.transaction { () throws -> Void in
                _ = try db.settleAddressKeys(limit: 4_096, threshold: 1)
                throw Abort()
            }
            let after = try version()
            let settled = try db.scalarInt("SELECT count(*) FROM imported_address_keys")
            return (before, coveredBefore, after, filter.covers(version: after), settled)
        }
        #expect(coveredBefore, "the first probe built the filter")
        #expect(after == before && settled == 0, "the settle rolled back")
        #expect(!coveredAfter, "the filter is out of date, not trusted")
    }
}

/// The Bloom filter under the settled-key filter: no key it took is ever reported absent, and few
/// others are reported present.
@Suite struct AddressKeyBloomTests {
    @Test func takenKeysAreAlwaysFoundAndFewOthersAre() {
        var generator = SystemRandomNumberGenerator()
        let taken = (0..<20_000).map { _ in Int64(bitPattern: generator.next()) }
        var bloom = AddressKeyBloom(capacity: taken.count)
        for key in taken { bloom.insert(key) }
        #expect(taken.allSatisfy { bloom.mayContain($0) }, "no false absence")
        // Small integers too: the keys are mixed, so sequential values spread as well as hashes.
        var small = AddressKeyBloom(capacity: 1_000)
        for key in Int64(0)..<1_000 { small.insert(key) }
        #expect((Int64(0)..<1_000).allSatisfy { small.mayContain($0) })
        let others = (0..<100_000).map { _ in Int64(bitPattern: generator.next()) }
        let falseHits = others.filter { bloom.mayContain($0) }.count
        #expect(falseHits < 2_000, "false hits \(falseHits) of 100,000 (0.14-0.17 % measured at this size)")
        let smallFalse = (Int64(1_000)..<101_000).filter { small.mayContain($0) }.count
        #expect(smallFalse < 2_000, "false hits among sequential keys: \(smallFalse) of 100,000")
        #expect(!bloom.isCrowded)
    }
}
