import Foundation
import Testing

/// A run is what it does (issue 25): the stories of the night's sweep after a failed one, two imports of
/// different files at once, and a resume with fewer requests in flight, through the built binary.
@Suite(.serialized) struct RunIdentityEndToEndTests {
    @Test func tonightsRunAfterLastNightsAbortNeedsNoFresh() throws {
        let space = try PlaybookWorkspace()
        try space.write(
            "nightly.yaml",
            """
            name: nightly
            vars:
              output: {type: path, default: out.csv}
              probability: {type: string, default: "0"}
            steps:
              - id: sweep
                action: fail
                max_failures: 0
                with: {probability: "${{ vars.probability }}", class: permanent}

            """)
        let lastNight = try space.run(["run", "nightly.yaml", "--var", "output=12-01.csv", "--var", "probability=1"])
        #expect(lastNight.status == 2, "aborted: \(lastNight)")
        let tonight = try space.run(["run", "nightly.yaml", "--var", "output=12-02.csv"])
        #expect(tonight.status == 0, "\(tonight)")
        #expect(tonight.standardOutput.contains("run 2 of 'nightly' completed"), "\(tonight)")
        #expect(
            tonight.standardError.contains(
                "notice: run 1 of 'nightly' is unfinished and left as it is (variable 'output' changed, "
                    + "variable 'probability' changed)"), "\(tonight)")
    }

    static func sleepySpace() throws -> PlaybookWorkspace {
        let space = try PlaybookWorkspace()
        try space.writeKeys("a.csv", count: 100)
        try space.writeKeys("b.csv", count: 100)
        try space.write(
            "sleepy.yaml",
            """
            name: sleepy
            vars:
              input: {type: path, required: true}
              parallel: {type: int, identity: false, default: 1}
            inputs:
              rows: {csv: "${{ vars.input }}", columns: [id]}
            steps:
              - {id: nap, action: sleep, for_each: rows, concurrency: "${{ vars.parallel }}", with: {duration: 50ms}}

            """)
        return space
    }

    @Test func twoRunsOfDifferentInputsGoSideBySideAndTheSameInputWaitsItsTurn() throws {
        let space = try Self.sleepySpace()
        let a = try space.start(
            ["run", "sleepy.yaml", "--var", "input=a.csv", "--progress-interval", "100ms"], tag: "a")
        let b = try space.start(["run", "sleepy.yaml", "--var", "input=b.csv"], tag: "b")
        #expect(space.wait(seconds: 30) { space.read("a.out").contains("progress") || !a.isRunning })
        let same = try space.run(["run", "sleepy.yaml", "--var", "input=a.csv"])
        #expect(same.status == 75, "the same work is locked: \(same)")
        a.waitUntilExit()
        b.waitUntilExit()
        #expect(a.terminationStatus == 0, "\(space.read("a.err"))")
        #expect(b.terminationStatus == 0, "\(space.read("b.err"))")
        #expect(space.read("b.out").contains("nap   succeeded  100"), "\(space.read("b.out"))")
    }

    @Test func aResumeWithFewerRequestsInFlightResumes() throws {
        let space = try Self.sleepySpace()
        let first = try space.start(
            ["run", "sleepy.yaml", "--var", "input=a.csv", "--var", "parallel=3", "--progress-interval", "100ms"],
            tag: "first")
        #expect(space.wait(seconds: 30) { space.read("first.out").contains("progress") || !first.isRunning })
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let resumed = try space.run(["run", "sleepy.yaml", "--var", "input=a.csv", "--var", "parallel=2"])
        #expect(resumed.status == 0, "\(resumed)")
        #expect(resumed.standardError.contains("resuming run 1"), "\(resumed)")
        #expect(resumed.standardOutput.contains("run 1 of 'sleepy' completed"), "\(resumed)")
    }
}
