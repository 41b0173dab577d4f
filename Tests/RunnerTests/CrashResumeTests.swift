import Foundation
import Testing

@testable import Runner

/// Kills a real process running a side-effecting step with SIGKILL, resumes in this process, and checks
/// every effect happened exactly once. The child is this same test binary running `crashChild`.
@Suite struct CrashResumeTests {
    static let childVariable = "WALLETOPS_CRASH_CHILD_DIR"
    static let itemCount = 20_000
    static let identity = RunIdentity(playbookName: "crash", playbookHash: "h")

    static func plan(_ action: any Action) -> RunPlan {
        RunPlan(
            name: "crash",
            steps: [StepPlan(id: "append", items: numberedItems(itemCount), action: action, concurrency: 4)])
    }

    /// The child: runs until killed (the parent kills it part-way through).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil))
    func crashChild() async throws {
        let dir = ProcessInfo.processInfo.environment[Self.childVariable]!
        let append = AppendAction(path: dir + "/effects.txt")
        let slow = ClosureAction(sideEffecting: true) { item, context in
            // Items past three quarters of the run never finish: the child is always still running when the
            // parent, however starved by a parallel test run, gets round to killing it.
            if let index = item.fields["n"].flatMap({ Int($0) }), index >= Self.itemCount * 3 / 4 {
                try await Task.sleep(for: .seconds(3600))
            }
            try await Task.sleep(for: .microseconds(200))
            return try await append.run(item, context: context)
        }
        let store = try RunStore(path: dir + "/runs.sqlite")
        _ = try await Engine.run(plan: Self.plan(slow), store: store, identity: Self.identity)
    }

    @Test func sigkillThenResumeAppendsEveryKeyExactlyOnce() async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let effects = dir.path("effects.txt")
        // The child's output goes to a file, shown if it ends on its own instead of being killed.
        let child = try ChildTest.start(
            "crashChild", setting: Self.childVariable, to: dir.url.path, log: dir.path("child.log"))
        func lineCount() -> Int {
            (try? Data(contentsOf: URL(fileURLWithPath: effects)))?.reduce(0) { $0 + ($1 == 10 ? 1 : 0) } ?? 0
        }
        try await waitUntil(timeout: 120) { lineCount() >= 3000 || !child.isRunning }
        #expect(
            child.isRunning,
            "the child ended before it could be killed: \((try? String(contentsOfFile: dir.path("child.log"), encoding: .utf8))?.suffix(2000) ?? "")"
        )
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)
        let linesAtKill = lineCount()

        let store = try RunStore(path: dir.path("runs.sqlite"))
        let before = try #require(try await store.findUnfinishedRun(playbookName: "crash"))
        #expect(before.lockPID == child.processIdentifier)
        let inDoubt = try await store.itemCounts(runID: before.id)[.started] ?? 0
        let probes = Recorder()
        let append = AppendAction(path: effects)
        let counting = ClosureAction(
            sideEffecting: true,
            probe: { item, context in
                let outcome = try await append.probe(item, context: context)
                probes.count(outcome == .notDone ? "not done" : "done")
                return outcome
            },
            { item, context in try await append.run(item, context: context) })
        let summary = try await Engine.run(plan: Self.plan(counting), store: store, identity: Self.identity)
        print(
            "killed after \(linesAtKill) effects; \(inDoubt) items in doubt at resume; probes: \(probes.snapshot.counts)"
        )
        #expect(summary.runID == before.id)
        #expect(summary.exitCode == 0)
        #expect(summary.succeeded == Self.itemCount)
        #expect(inDoubt > 0)
        #expect(probes.snapshot.counts.values.reduce(0, +) == inDoubt)
        let lines = try String(contentsOfFile: effects, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == Self.itemCount)
        #expect(Set(lines).count == Self.itemCount)
        let events = try await store.events(runID: before.id).map(\.kind)
        #expect(events.contains("lock-takeover"))
    }
}
