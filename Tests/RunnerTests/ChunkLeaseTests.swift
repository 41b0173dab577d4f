import Foundation
import PostgresKit
import Synchronization
import TestSupport
import Testing

@testable import Runner

/// Chunk leases on both stores: claims in order, lapsed leases rescued at a new epoch, every late write of
/// the old holder refused (in process, and from a real process SIGSTOPped past its lease), a completion
/// racing the rescuer kept (River #1302), and concurrent claimers never sharing a chunk.
@Suite struct ChunkLeaseTests {
    static let identity = RunIdentity(playbookName: "leases", playbookHash: "h")

    /// How many times each chunk was claimed.
    final class Claims: Sendable {
        private let state = Mutex<[Int: Int]>([:])
        func add(_ chunk: Int) { state.withLock { $0[chunk, default: 0] += 1 } }
        var counts: [Int: Int] { state.withLock { $0 } }
    }
    static let childVariable = "WALLETOPS_LEASE_CHILD"

    static func run(_ store: RunStore, chunkSize: Int = 100, total: Int? = 1_000) async throws -> Int64 {
        let handle = try await store.openRun(identity)
        try await store.prepareChunks(runID: handle.runID, step: "s", chunkSize: chunkSize, total: total)
        return handle.runID
    }

    @Test(arguments: StoreKind.allCases) func claimsHandOutEachChunkOnceInOrder(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(location: try kind.location(in: dir))
        let runID = try await Self.run(store, total: 250)
        var leases: [ChunkLease] = []
        while let lease = try await store.claimChunk(runID: runID, step: "s", owner: "w1", lease: .seconds(60)) {
            leases.append(lease)
        }
        #expect(leases.map(\.chunk) == [0, 1, 2], "250 items in chunks of 100")
        #expect(leases.allSatisfy { $0.epoch == 1 && !$0.isRescue })
        #expect(leases[2].positions == 200..<300)
        #expect(try await store.leasedWatermark(runID: runID, step: "s") == 0)
        try await store.complete(leases[1], updates: [ItemOutcomeRow(key: "row:150", index: 150, state: .failed)])
        #expect(try await store.leasedWatermark(runID: runID, step: "s") == 0, "chunk 0 is still open")
        try await store.complete(leases[0], updates: [])
        #expect(try await store.leasedWatermark(runID: runID, step: "s") == 200)
        try await store.complete(leases[2], updates: [])
        #expect(try await store.leasedWatermark(runID: runID, step: "s") == 250, "capped at the total")
        #expect(try await store.claimChunk(runID: runID, step: "s", owner: "w2", lease: .seconds(60)) == nil)
        #expect(try await store.items(runID: runID).map(\.key) == ["row:150"])
        await #expect(throws: RunStoreError.self) { try await store.complete(leases[0], updates: []) }
    }

    @Test(arguments: StoreKind.allCases) func aLapsedLeaseIsRescuedAndItsOldHolderRefused(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(location: try kind.location(in: dir))
        let runID = try await Self.run(store)
        // Claimed first with a long lease, so that however loaded the machine, only the second one lapses
        // (10 s was not enough once: a starved test process took longer between the two claims).
        let held = try #require(
            try await store.claimChunk(runID: runID, step: "s", owner: "renewing", lease: .seconds(600)))
        let old = try #require(
            try await store.claimChunk(runID: runID, step: "s", owner: "slow", lease: .milliseconds(200)))
        #expect(try await store.renew(held, for: .seconds(60)))
        try await Task.sleep(for: .milliseconds(300))
        let rescue = try #require(
            try await store.claimChunk(runID: runID, step: "s", owner: "rescuer", lease: .seconds(60)))
        #expect(
            rescue.chunk == old.chunk && rescue.epoch == 2 && rescue.isRescue,
            "the lapsed chunk, not the renewed one: \(rescue), old \(old), held \(held)")
        #expect(try await !store.renew(old, for: .seconds(60)))
        do {
            try await store.fenced(old, extendingBy: .seconds(60)) { write in
                try write.write([ItemOutcomeRow(key: "row:1", index: 1, state: .succeeded)])
            }
            Issue.record("a late write was accepted")
        } catch let error as RunStoreError {
            #expect(error.code == .leaseLost)
            #expect(error.message.contains("no longer held at epoch 1 by slow"))
        }
        await #expect(throws: RunStoreError.self) {
            try await store.complete(old, updates: [ItemOutcomeRow(key: "row:2", index: 2, state: .succeeded)])
        }
        #expect(try await store.items(runID: runID).isEmpty, "nothing of the old holder's writes")
        try await store.complete(rescue, updates: [ItemOutcomeRow(key: "row:3", index: 3, state: .rejected)])
        #expect(try await store.items(runID: runID).map(\.key) == ["row:3"])
        let chunk = try await store.chunks(runID: runID, step: "s").first { $0.chunk == old.chunk }
        #expect(chunk?.state == "done" && chunk?.epoch == 2 && chunk?.owner == "rescuer")
        #expect(try await store.events(runID: runID).contains { $0.kind == "chunk-rescued" })
    }

    /// River #1302: the rescuer fetched a lapsed job, the job completed, and the rescuer's update overwrote
    /// the completion. Here the completion and the rescue race in 40 rounds: exactly one of them wins each.
    @Test(arguments: StoreKind.allCases) func aCompletionRacingTheRescuerIsKept(_ kind: StoreKind) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let location = try kind.location(in: dir)
        let holder = try RunStore(location: location)
        let rescuer = try RunStore(location: location)
        let runID = try await Self.run(holder, chunkSize: 1, total: 200)
        var completions = 0
        var rescues = 0
        for _ in 0..<40 {
            let lease = try #require(
                try await holder.claimChunk(runID: runID, step: "s", owner: "holder", lease: .milliseconds(5)))
            try await Task.sleep(for: .milliseconds(8))
            async let completed: Bool = {
                do {
                    try await holder.complete(
                        lease, updates: [ItemOutcomeRow(key: "k\(lease.chunk)", index: lease.chunk, state: .succeeded)])
                    return true
                } catch let error as RunStoreError where error.code == .leaseLost {
                    return false
                }
            }()
            async let rescued = rescuer.claimChunk(runID: runID, step: "s", owner: "rescuer", lease: .seconds(60))
            let (done, taken) = try await (completed, rescued)
            let state = try await holder.chunks(runID: runID, step: "s").first { $0.chunk == lease.chunk }
            if done {
                completions += 1
                #expect(taken?.chunk != lease.chunk, "a completed chunk was rescued")
                #expect(state?.state == "done" && state?.epoch == 1)
            } else {
                rescues += 1
                #expect(taken?.chunk == lease.chunk && taken?.epoch == 2)
                #expect(state?.state == "running" && state?.owner == "rescuer")
                try await rescuer.complete(try #require(taken), updates: [])
            }
            if let taken, taken.chunk != lease.chunk {
                try await rescuer.complete(taken, updates: [])  // the next chunk, claimed fresh: put it to rest
            }
        }
        print("completion/rescue race on \(kind): \(completions) completions kept, \(rescues) rescues")
        #expect(completions + rescues >= 20)
        let keys = try await holder.items(runID: runID).map(\.key)
        #expect(keys.count == completions, "a refused completion wrote nothing")
    }

    @Test func concurrentClaimersNeverShareAChunk() async throws {
        let url = try TestPostgres.freshDatabase()
        let first = try RunStore(location: url)
        let runID = try await Self.run(first, chunkSize: 10, total: 2_000)
        let claimed = Claims()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                let store = try RunStore(location: url)
                group.addTask {
                    while let lease = try await store.claimChunk(
                        runID: runID, step: "s", owner: "w\(worker)", lease: .seconds(60))
                    {
                        claimed.add(lease.chunk)
                        try await store.complete(lease, updates: [])
                    }
                }
            }
            try await group.waitForAll()
        }
        let counts = claimed.counts
        #expect(counts.count == 200 && counts.values.allSatisfy { $0 == 1 })
        #expect(try await first.leasedWatermark(runID: runID, step: "s") == 2_000)
    }

    /// The child: claims chunk 0 with a short lease, then writes a row through the fence again and again
    /// (each write extends the lease), logging "wrote N" or "refused N".
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil))
    func fencedWriterChild() async throws {
        let settings = ProcessInfo.processInfo.environment[Self.childVariable]!.split(separator: " ")
        let store = try RunStore(location: String(settings[0]))
        let runID = Int64(settings[1])!
        let lease = try #require(
            try await store.claimChunk(runID: runID, step: "s", owner: "child", lease: .seconds(1)))
        for n in 0..<400 {
            do {
                try await store.fenced(lease, extendingBy: .seconds(1)) { write in
                    try write.write([ItemOutcomeRow(key: "child-\(n)", index: n, state: .succeeded)])
                }
                Self.say("wrote \(n)")
            } catch let error as RunStoreError where error.code == .leaseLost {
                Self.say("refused \(n)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// One line on standard output, unbuffered (the parent reads it while the child runs).
    static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }

    @Test func aWorkerStoppedPastItsLeaseHasEveryLateWriteRefused() async throws {
        let url = try TestPostgres.freshDatabase()
        let store = try RunStore(location: url)
        let runID = try await Self.run(store)
        let dir = try TempDirectory()
        defer { dir.remove() }
        let child = try ChildTest.start(
            "fencedWriterChild", setting: Self.childVariable, to: "\(url) \(runID)", log: dir.path("child.log"))
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        func written() async throws -> Int { try await store.items(runID: runID).count }
        let deadline = Date().addingTimeInterval(60)
        while try await written() < 5, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await written() >= 5, "the child writes under its lease")
        // Stopped between its transactions: stopped inside one, it would hold the chunk's row lock, and
        // the rescuer's claim (SKIP LOCKED) would rightly pass the chunk by.
        let observer = try PostgresConnection(url: url)
        func childInTransaction() throws -> Bool {
            let rows = try observer.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    + "AND pid <> pg_backend_pid() AND state IS NOT NULL AND state <> 'idle'")
            return (rows.rows.first?.first ?? nil) != "0"
        }
        for _ in 0..<200 {
            kill(child.processIdentifier, SIGSTOP)
            try await Task.sleep(for: .milliseconds(20))
            if try !childInTransaction() { break }
            kill(child.processIdentifier, SIGCONT)
            try await Task.sleep(for: .milliseconds(Int.random(in: 1...30)))
        }
        #expect(try !childInTransaction(), "the child was stopped between its transactions")
        let atStop = try await written()
        try await Task.sleep(for: .milliseconds(1_500))
        let rescue = try #require(
            try await store.claimChunk(runID: runID, step: "s", owner: "rescuer", lease: .seconds(60)))
        #expect(rescue.chunk == 0 && rescue.epoch == 2 && rescue.isRescue)
        kill(child.processIdentifier, SIGCONT)
        try await Task.sleep(for: .milliseconds(1_000))
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        let text = (try? String(contentsOfFile: dir.path("child.log"), encoding: .utf8)) ?? ""
        #expect(text.contains("refused "), "the woken child tried and was refused: \(text.suffix(400))")
        // At most the write the child had begun at the stop lands; nothing after the rescue.
        #expect(try await written() <= atStop + 1, "\(text.suffix(400))")
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("wrote ") || $0.hasPrefix("refused ") }
        if let firstRefused = lines.firstIndex(where: { $0.hasPrefix("refused ") }) {
            #expect(lines[firstRefused...].allSatisfy { $0.hasPrefix("refused ") }, "no write accepted after a refusal")
        }
        #expect(try await store.chunks(runID: runID, step: "s").first?.owner == "rescuer")
    }
}
