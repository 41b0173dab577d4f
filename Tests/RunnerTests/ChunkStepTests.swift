import Foundation
import SQLiteKit
import Synchronization
import Testing

@testable import Runner

/// A chunk action built from a closure, recording every chunk it is handed.
struct ClosureChunkAction: ChunkAction {
    var name = "chunk"
    var isSideEffecting = false
    var isIdempotent = false
    var defaultBatch = 100
    var sinks: [OutputSink] = []
    let chunks = ChunkLog()
    var body: @Sendable ([WorkItem], ChunkContext) async throws -> [ItemOutcome]
    var probeBody: (@Sendable ([WorkItem]) async throws -> [ProbeOutcome])?
    var prepareBody: (@Sendable () async -> Void)?

    func prepare() async { await prepareBody?() }

    func run(chunk: [WorkItem], context: ChunkContext) async throws -> [ItemOutcome] {
        chunks.append(chunk.map(\.key))
        return try await body(chunk, context)
    }

    func probe(chunk: [WorkItem], context: ChunkContext) async throws -> [ProbeOutcome] {
        try await probeBody?(chunk) ?? chunk.map { _ in .unknown }
    }
}

/// The chunks an action was handed, in call order.
final class ChunkLog: Sendable {
    private let state = Mutex<[[String]]>([])
    func append(_ keys: [String]) { state.withLock { $0.append(keys) } }
    var all: [[String]] { state.withLock { $0 } }
    var items: Int { all.reduce(0) { $0 + $1.count } }
}

@Suite struct ChunkStepTests {
    static func items(_ count: Int) -> ItemSource {
        .generated(count: count) { WorkItem(key: "row:\($0 + 1)", fields: ["n": String($0 + 1)]) }
    }

    static func succeed(_ chunk: [WorkItem]) -> [ItemOutcome] {
        chunk.map { .succeeded(ActionResult(outputs: ["n": $0.fields["n"]!])) }
    }

    @Test(arguments: StoreKind.allCases) func everyItemOfAChunkGetsItsOwnOutcome(_ kind: StoreKind) async throws {
        let clock = ManualClock(autoAdvance: true)
        let action = ClosureChunkAction { chunk, _ in
            chunk.map { item in
                let n = Int(item.fields["n"]!)!
                switch n % 10 {
                case 3: return .rejected(reason: "row \(n) is not hex", outputs: ["source": "\(n)"])
                case 7: return .failed(.permanent, "row \(n) refused")
                default: return .succeeded(ActionResult(outputs: ["n": "\(n)"]))
                }
            }
        }
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place)
        let plan = RunPlan(
            name: "outcomes",
            steps: [
                StepPlan(
                    id: "s", items: Self.items(2_500), action: action, concurrency: 4, retry: .none,
                    failureBudget: .count(10_000), batch: 100)
            ], concurrency: 8)
        let summary = try await Engine.run(
            plan: plan, store: store, identity: RunIdentity(playbookName: "outcomes", playbookHash: "h"),
            options: .init(clock: clock))
        #expect(summary.succeeded == 2_000)
        #expect(summary.rejected == 250)
        #expect(summary.failed == 250)
        #expect(summary.exitCode == 1)
        // Whole chunks of 100, each item once.
        #expect(action.chunks.all.count == 25)
        #expect(action.chunks.all.allSatisfy { $0.count == 100 })
        #expect(Set(action.chunks.all.joined()).count == 2_500)
        let rows = Dictionary(uniqueKeysWithValues: try await store.items(runID: summary.runID!).map { ($0.key, $0) })
        #expect(rows["row:13"]?.state == .rejected)
        #expect(rows["row:13"]?.message == "row 13 is not hex")
        #expect(rows["row:17"]?.state == .failed)
        #expect(rows["row:17"]?.errorClass == "permanent")
        #expect(rows["row:17"]?.message == "row 17 refused")
        let counts = try await store.itemCounts(runID: summary.runID!)
        #expect(counts[.succeeded] == 2_000)
    }

    /// `prepare()` runs once per step, beside the reading and the chunks rather than before them: here it
    /// waits for the first chunk, which would never come if the engine awaited it first.
    @Test func prepareRunsOnceBesideTheChunks() async throws {
        let prepared = Mutex<(calls: Int, sawAChunk: Bool)>((0, false))
        var action = ClosureChunkAction { chunk, _ in Self.succeed(chunk) }
        let chunks = action.chunks
        action.prepareBody = {
            prepared.withLock { $0.calls += 1 }
            for _ in 0..<500 where chunks.all.isEmpty { try? await Task.sleep(for: .milliseconds(10)) }
            prepared.withLock { $0.sawAChunk = !chunks.all.isEmpty }
        }
        let plan = RunPlan(
            name: "prepare",
            steps: [
                StepPlan(
                    id: "s", items: Self.items(2_500), action: action, concurrency: 4, retry: .none, batch: 100)
            ], concurrency: 8)
        let clock = ManualClock(autoAdvance: true)
        let summary = try await Engine(plan: plan, checkpoint: nil, options: .init(clock: clock)).run()
        #expect(summary.succeeded == 2_500)
        let (calls, sawAChunk) = prepared.withLock { ($0.calls, $0.sawAChunk) }
        #expect(calls == 1)
        #expect(sawAChunk, "the first chunk waited for prepare()")
    }

    @Test func chunkScanningIsolatesOneBadRowInAChunkOfAThousand() async throws {
        let clock = ManualClock(autoAdvance: true)
        // The service refuses a whole request that holds row 613, as a batch API does.
        let action = ClosureChunkAction { chunk, _ in
            if chunk.contains(where: { $0.key == "row:613" }) { throw ActionError.permanent("batch refused: row 613") }
            return Self.succeed(chunk)
        }
        let plan = RunPlan(
            name: "scan",
            steps: [
                StepPlan(
                    id: "s", items: Self.items(1_000), action: action, retry: RetryPolicy(maxAttempts: 3),
                    failureBudget: .count(10), batch: 1_000)
            ])
        let summary = try await Engine(plan: plan, checkpoint: nil, options: .init(clock: clock)).run()
        #expect(summary.succeeded == 999)
        #expect(summary.failed == 1)
        // Split in halves down to the one row: about two chunks per level, no retry of a permanent error.
        let calls = action.chunks.all
        #expect(calls.count <= 2 * 10 + 1)
        #expect(calls.first?.count == 1_000)
        #expect(calls.contains(["row:613"]))
        // Every good row succeeded exactly once.
        var succeededOnce: [String: Int] = [:]
        for chunk in calls where !chunk.contains("row:613") {
            for key in chunk { succeededOnce[key, default: 0] += 1 }
        }
        #expect(succeededOnce.count == 999)
        #expect(succeededOnce.values.allSatisfy { $0 == 1 })
    }

    @Test(arguments: StoreKind.allCases) func aChunkThatKeepsFailingRetryablyIsNotSplit(_ kind: StoreKind) async throws
    {
        let clock = ManualClock(autoAdvance: true)
        let action = ClosureChunkAction { _, _ in throw ActionError.retryable("the core is unreachable") }
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place)
        let plan = RunPlan(
            name: "down",
            steps: [
                StepPlan(
                    id: "s", items: Self.items(300), action: action, retry: RetryPolicy(maxAttempts: 3),
                    failureBudget: .count(1_000), batch: 300)
            ])
        let summary = try await Engine.run(
            plan: plan, store: store, identity: RunIdentity(playbookName: "down", playbookHash: "h"),
            options: .init(clock: clock))
        #expect(summary.failed == 300)
        #expect(action.chunks.all.count == 3)
        let rows = try await store.items(runID: summary.runID!)
        #expect(rows.count == 300)
        #expect(rows.allSatisfy { $0.errorClass == "retryable" && $0.attempts == 3 })
        #expect(rows.allSatisfy { $0.message == "the core is unreachable" })
    }

    @Test func itemsThatFailAloneAreRetriedAlone() async throws {
        let clock = ManualClock(autoAdvance: true)
        let tries = Mutex<[String: Int]>([:])
        let action = ClosureChunkAction { chunk, _ in
            chunk.map { item in
                let attempt = tries.withLock { tries -> Int in
                    tries[item.key, default: 0] += 1
                    return tries[item.key]!
                }
                if item.key == "row:5" && attempt < 3 { return .failed(.retryable, "busy") }
                return .succeeded(ActionResult(outputs: ["n": item.fields["n"]!]))
            }
        }
        let plan = RunPlan(
            name: "alone",
            steps: [
                StepPlan(
                    id: "s", items: Self.items(10), action: action, retry: RetryPolicy(maxAttempts: 5), batch: 10)
            ])
        let summary = try await Engine(plan: plan, checkpoint: nil, options: .init(clock: clock)).run()
        #expect(summary.succeeded == 10)
        #expect(action.chunks.all == [(1...10).map { "row:\($0)" }, ["row:5"], ["row:5"]])
        #expect(clock.requestedSleeps.count == 2)
    }

    @Test(arguments: StoreKind.allCases) func sinksAreWrittenInInputOrderOnceUnderConcurrency(_ kind: StoreKind)
        async throws
    {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let store = try RunStore(location: place)
        var action = ClosureChunkAction { chunk, _ in
            // Chunks finish out of order.
            try await Task.sleep(for: .microseconds(Int.random(in: 0...3_000)))
            return chunk.map { item in
                let n = Int(item.fields["n"]!)!
                if n % 50 == 0 { return .rejected(reason: "bad, row \(n)", outputs: ["source": "\(n)"]) }
                return .succeeded(ActionResult(outputs: ["n": "\(n)", "double": "\(2 * n)"]))
            }
        }
        action.sinks = Self.twoSinks(dir)
        let plan = RunPlan(
            name: "order",
            steps: [
                StepPlan(
                    id: "s", items: Self.items(5_000), action: action, concurrency: 8,
                    failureBudget: .count(10_000), batch: 64)
            ], concurrency: 8)
        let summary = try await Engine.run(
            plan: plan, store: store, identity: RunIdentity(playbookName: "order", playbookHash: "h"),
            options: .init(flushInterval: .milliseconds(5)))
        #expect(summary.succeeded == 4_900)
        #expect(summary.rejected == 100)
        let output = try String(contentsOfFile: dir.path("out.csv"), encoding: .utf8)
        let expected =
            "n,double\r\n" + (1...5_000).filter { $0 % 50 != 0 }.map { "\($0),\(2 * $0)\r\n" }.joined()
        #expect(output == expected)
        let rejects = try String(contentsOfFile: dir.path("rejects.csv"), encoding: .utf8)
        #expect(
            rejects
                == "source,reason\r\n" + (1...100).map { "\($0 * 50),\"bad, row \($0 * 50)\"\r\n" }.joined())
    }

    static func twoSinks(_ dir: TempDirectory) -> [OutputSink] {
        [
            OutputSink(path: dir.path("out.csv"), header: ["n", "double"]) { record in
                record.state == .succeeded ? [record.outputs["n"]!, record.outputs["double"]!] : nil
            },
            OutputSink(path: dir.path("rejects.csv"), header: ["source", "reason"]) { record in
                record.state == .rejected ? [record.outputs["source"] ?? "", record.message ?? ""] : nil
            },
        ]
    }

    @Test(arguments: StoreKind.allCases) func aResumedRunTruncatesItsSinksAndSendsNothingFinishedAgain(
        _ kind: StoreKind
    ) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let place = try kind.location(in: dir)
        let sent = Mutex<[String: Int]>([:])
        let gate = Mutex(false)
        // Run 1: chunks past row 3,000 never come back (a crash mid-run); run 2: everything answers.
        func makeAction(blockAfter: Int?) -> ClosureChunkAction {
            var action = ClosureChunkAction { chunk, _ in
                sent.withLock { for item in chunk { $0[item.key, default: 0] += 1 } }
                if let blockAfter, chunk.contains(where: { Int($0.fields["n"]!)! > blockAfter }) {
                    while !gate.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
                    throw CancellationError()
                }
                return chunk.map { item in
                    let n = Int(item.fields["n"]!)!
                    if n % 50 == 0 { return .rejected(reason: "bad, row \(n)", outputs: ["source": "\(n)"]) }
                    return .succeeded(ActionResult(outputs: ["n": "\(n)", "double": "\(2 * n)"]))
                }
            }
            action.isSideEffecting = true
            action.isIdempotent = true
            action.sinks = Self.twoSinks(dir)
            return action
        }
        let identity = RunIdentity(playbookName: "resume", playbookHash: "h")
        func plan(_ action: ClosureChunkAction) -> RunPlan {
            RunPlan(
                name: "resume",
                steps: [
                    StepPlan(
                        id: "s", items: Self.items(6_000), action: action, concurrency: 4,
                        failureBudget: .count(10_000), batch: 100)
                ], concurrency: 4)
        }
        do {
            let store = try RunStore(location: place)
            let handle = try await store.openRun(identity, mode: .resumeOrStart(acceptChanges: false))
            let engine = try Engine(
                plan: plan(makeAction(blockAfter: 3_000)), checkpoint: handle,
                options: .init(flushInterval: .milliseconds(5), gracePeriod: .milliseconds(50)))
            let running = Task { try await engine.run() }
            try await waitUntil { sent.withLock { $0.count } >= 3_400 }
            try await Task.sleep(for: .milliseconds(50))
            engine.stop()
            engine.stop()
            gate.withLock { $0 = true }
            let first = try await running.value
            #expect(first.status == .interrupted)
        }
        // Bytes a crash could leave past the committed offset.
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.path("out.csv")))
        try out.seekToEnd()
        try out.write(contentsOf: Array("99999,garbage\r\n".utf8))
        try out.close()
        let sentInRun1 = sent.withLock { $0 }
        sent.withLock { $0 = [:] }
        let store = try RunStore(location: place)
        let summary = try await Engine.run(
            plan: plan(makeAction(blockAfter: nil)), store: store, identity: identity,
            options: .init(flushInterval: .milliseconds(5)))
        #expect(summary.status == .completed)
        #expect(summary.succeeded == 5_880)
        #expect(summary.rejected == 120)
        let output = try String(contentsOfFile: dir.path("out.csv"), encoding: .utf8)
        #expect(output == "n,double\r\n" + (1...6_000).filter { $0 % 50 != 0 }.map { "\($0),\(2 * $0)\r\n" }.joined())
        let rejects = try String(contentsOfFile: dir.path("rejects.csv"), encoding: .utf8)
        #expect(
            rejects == "source,reason\r\n" + (1...120).map { "\($0 * 50),\"bad, row \($0 * 50)\"\r\n" }.joined())
        // Rows the first run finished (rows 1-3,000) are not sent again; what was in flight may be.
        let sentAgain = sent.withLock { $0 }.keys.filter { Int($0.dropFirst(4))! <= 3_000 }
        #expect(sentAgain.isEmpty)
        #expect(sentInRun1.keys.filter { Int($0.dropFirst(4))! > 3_000 }.count <= 4 * 100)
    }

    @Test func secretFieldsReachNoTableOfTheRunStore() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let store = try RunStore(path: dir.path("runs.sqlite"))
        let secrets = (1...200).map { String(format: "%064x", $0 * 7_919) }
        let items = ItemSource.generated(count: 200) {
            WorkItem(key: "row:\($0 + 1)", fields: ["key": secrets[$0], "n": "\($0 + 1)"], secretFields: ["key"])
        }
        var action = ClosureChunkAction { chunk, _ in
            chunk.map { item in
                let n = Int(item.fields["n"]!)!
                // An action careless with its messages and outputs: the engine redacts them.
                switch n % 4 {
                case 0:
                    return .rejected(reason: "key \(item.fields["key"]!) is weak", outputs: ["k": item.fields["key"]!])
                case 1: return .failed(.permanent, "refused \(item.fields["key"]!)")
                default:
                    return .succeeded(
                        ActionResult(
                            outputs: ["echo": item.fields["key"]!, "key": item.fields["key"]!], secretOutputs: ["key"]))
                }
            }
        }
        action.sinks = [
            OutputSink(path: dir.path("out.csv"), header: ["n", "echo", "key"]) { record in
                [record.fields["n"] ?? "", record.outputs["echo"] ?? "", record.fields["key"] ?? "-"]
            }
        ]
        let plan = RunPlan(
            name: "secrets",
            steps: [
                StepPlan(id: "s", items: items, action: action, retry: .none, failureBudget: .count(1_000), batch: 50)
            ])
        let summary = try await Engine.run(
            plan: plan, store: store, identity: RunIdentity(playbookName: "secrets", playbookHash: "h"))
        #expect(summary.failed == 50)
        #expect(summary.rejected == 50)
        let database = try SQLiteDatabase(path: dir.path("runs.sqlite"))
        var dump = ""
        for table in try database.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap({
            if case .text(let name) = $0[0] { name } else { nil }
        }) {
            for row in try database.rows("SELECT * FROM \(table)") {
                dump += row.map { "\($0)" }.joined(separator: "|")
            }
        }
        dump += try String(contentsOfFile: dir.path("out.csv"), encoding: .utf8)
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.url.path) {
            dump += (try? String(contentsOfFile: dir.path(file), encoding: .isoLatin1)) ?? ""
        }
        #expect(dump.contains(WorkItem.redactedMarker))
        let leaked = secrets.filter { dump.contains($0) }
        #expect(leaked.isEmpty)
    }

    @Test func anInDoubtChunkIsProbedBeforeItIsSentAgain() async throws {
        let clock = ManualClock(autoAdvance: true)
        let applied = Mutex<Set<String>>([])
        let sends = Mutex(0)
        var action = ClosureChunkAction { chunk, _ in
            let send = sends.withLock { count -> Int in
                count += 1
                return count
            }
            applied.withLock { for item in chunk where item.key != "row:7" { $0.insert(item.key) } }
            // The first reply is lost after the service applied all but row 7.
            if send == 1 { throw ActionError.inDoubt("connection reset") }
            return Self.succeed(chunk)
        }
        action.isSideEffecting = true
        action.probeBody = { chunk in
            chunk.map {
                applied.withLock { $0 }.contains($0.key) ? .done(ActionResult(outputs: ["probed": "yes"])) : .notDone
            }
        }
        let plan = RunPlan(
            name: "doubt",
            steps: [
                StepPlan(
                    id: "s", items: Self.items(10), action: action,
                    retry: RetryPolicy(maxAttempts: 3, retryOn: [.retryable, .inDoubt]), batch: 10)
            ])
        let summary = try await Engine(plan: plan, checkpoint: nil, options: .init(clock: clock)).run()
        #expect(summary.succeeded == 10)
        #expect(action.chunks.all == [(1...10).map { "row:\($0)" }, ["row:7"]])
    }
}

@Suite struct InputOrderAdmissionTests {
    /// Eight chunks in flight that take random times before and after their admission: the admissions
    /// still come in input order, each chunk's rows consecutive, while the chunks overlap.
    @Test func admissionsSeeRowsInInputOrderUnderConcurrencyEight() async throws {
        let admitted = Mutex<[Int]>([])
        let inFlight = Mutex((now: 0, most: 0))
        let action = ClosureChunkAction { chunk, context in
            inFlight.withLock {
                $0.now += 1; $0.most = max($0.most, $0.now)
            }
            defer { inFlight.withLock { $0.now -= 1 } }
            // Preparing (reading, decrypting) takes longer for some chunks than for later ones.
            try await Task.sleep(for: .microseconds(Int.random(in: 0...4_000)))
            await context.inInputOrder {
                admitted.withLock { list in for item in chunk { list.append(Int(item.fields["n"]!)!) } }
            }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...2_000)))
            return ChunkStepTests.succeed(chunk)
        }
        let plan = RunPlan(
            name: "admission",
            steps: [
                StepPlan(id: "s", items: ChunkStepTests.items(4_000), action: action, concurrency: 8, batch: 50)
            ], concurrency: 8)
        let summary = try await Engine(plan: plan, checkpoint: nil).run()
        #expect(summary.succeeded == 4_000)
        #expect(admitted.withLock { $0 } == Array(1...4_000))
        #expect(inFlight.withLock { $0.most } > 1, "the chunks ran concurrently")
    }

    /// A chunk that fails as a whole and is retried (or scanned) is not held to its turn again, and a
    /// chunk that never asks for its turn holds no one up.
    @Test func retriesAndChunksThatNeverAskHoldNoOneUp() async throws {
        let clock = ManualClock(autoAdvance: true)
        let calls = Mutex(0)
        let action = ClosureChunkAction { chunk, context in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            // Only every other chunk (first rows 1, 21, 41, ...) asks for its turn.
            if Int(chunk[0].fields["n"]!)! % 20 == 1 { await context.inInputOrder {} }
            if call == 1 { throw ActionError.retryable("busy") }
            return ChunkStepTests.succeed(chunk)
        }
        let plan = RunPlan(
            name: "turns",
            steps: [
                StepPlan(
                    id: "s", items: ChunkStepTests.items(200), action: action, concurrency: 3,
                    retry: RetryPolicy(maxAttempts: 3), batch: 10)
            ], concurrency: 3)
        let summary = try await Engine(plan: plan, checkpoint: nil, options: .init(clock: clock)).run()
        #expect(summary.succeeded == 200)
    }
}
