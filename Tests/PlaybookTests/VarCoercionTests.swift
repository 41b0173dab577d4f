import Testing

@testable import Playbook

@Suite struct VarCoercionTests {
    static let playbook = try! Playbook.parse(
        """
        name: vars
        vars:
          env: {choices: [dev, prod], required: true}
          count: {type: int, default: 5}
          dry_run: {type: bool, default: false}
          tags: {type: list}
          wait: {type: duration, default: 30s}
          dir: {type: path, default: /data}
          label: {}
        secrets:
          token: {env: TOKEN}
        steps:
          - id: a
            action: x
        """, file: "vars.yaml")

    @Test func coercesEachType() throws {
        let vars = try Self.playbook.resolveVars([
            "env=prod", "count=12", "dry_run=yes", "tags=a, b,,c", "wait=1h30m", "label=hello=world",
        ])
        #expect(vars["env"] == .string("prod"))
        #expect(vars["count"] == .int(12))
        #expect(vars["dry_run"] == .bool(true))
        #expect(vars["tags"] == .list([.string("a"), .string("b"), .string("c")]))
        #expect(vars["wait"] == .string("1h30m"))
        #expect(vars["dir"] == .string("/data"))
        #expect(vars["label"] == .string("hello=world"))
    }

    @Test func defaultsApplyAndOptionalVarsStayUnset() throws {
        let vars = try Self.playbook.resolveVars(["env=dev"])
        #expect(vars["count"] == .int(5))
        #expect(vars["dry_run"] == .bool(false))
        #expect(vars["label"] == nil)
        #expect(vars["tags"] == nil)
    }

    @Test func reportsEveryProblemNamingTheVar() {
        #expect(
            throws: VarError(problems: [
                "var 'count': expected an integer, got 'ten'",
                "var 'dry_run': expected true or false, got 'maybe'",
                "var 'wait': expected a duration such as 30s, 5m or 1h, got '30'",
                "--var: unknown var 'cuont'; did you mean 'count'?",
                "--var 'oops': expected name=value",
                "var 'env' is required; set it with --var env=<value>",
            ])
        ) {
            try Self.playbook.resolveVars(["count=ten", "dry_run=maybe", "wait=30", "cuont=1", "oops"])
        }
        #expect(
            throws: VarError(problems: ["var 'env': expected one of dev, prod, got 'prdo'; did you mean 'prod'?"])
        ) {
            try Self.playbook.resolveVars(["env=prdo"])
        }
    }

    @Test func secretsCannotBeSetOnTheCommandLine() {
        #expect(
            throws: VarError(problems: [
                "'token' is a secret; secrets are read from the environment or a file, never from the command line"
            ])
        ) {
            try Self.playbook.resolveVars(["env=dev", "token=hunter2"])
        }
    }

    @Test func durationsAndBudgets() {
        #expect(DurationText.parse("500ms") == .milliseconds(500))
        #expect(DurationText.parse("1h30m") == .seconds(5400))
        #expect(DurationText.parse("1.5s") == .milliseconds(1500))
        #expect(DurationText.parse("2d") == .seconds(172_800))
        for bad in ["", "30", "s", "5 m", "1x", "-1s"] { #expect(DurationText.parse(bad) == nil, "\(bad)") }
        #expect(DurationText.format(.seconds(5400)) == "1h30m")
        #expect(DurationText.format(.milliseconds(1250)) == "1s250ms")
        #expect(MaxFailures(text: "5%") == .percent(5))
        #expect(MaxFailures(text: "10") == .count(10))
        for bad in ["101%", "-1", "x", "%", "1.5"] { #expect(MaxFailures(text: bad) == nil, "\(bad)") }
        #expect(MaxFailures.percent(5).allows(failures: 5, total: 100))
        #expect(!MaxFailures.percent(5).allows(failures: 6, total: 100))
        #expect(MaxFailures.count(0).allows(failures: 0, total: 9))
        #expect(!MaxFailures.count(0).allows(failures: 1, total: 9))
    }

    @Test func backoffDelays() {
        let backoff = RetrySettings.Backoff(initial: .milliseconds(500), max: .seconds(3), multiplier: 2)
        #expect(
            (1...6).map(backoff.delay(beforeAttempt:)) == [
                .zero, .milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3),
            ])
    }
}
