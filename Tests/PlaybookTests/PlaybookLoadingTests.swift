import Foundation
import TestSupport
import Testing

@testable import Playbook

@Suite struct PlaybookLoadingTests {
    static func load(_ name: String) throws -> Playbook {
        let url = Fixtures.url("playbooks/good/\(name)")
        let text = try String(contentsOf: url, encoding: .utf8)
        let result = Playbook.validate(text, file: name)
        if !result.isValid { print(result.rendered) }
        return try #require(result.playbook)
    }

    @Test func fullPlaybookParsesIntoTheModel() throws {
        let p = try Self.load("migrate.yaml")
        #expect(p.name == "legacy-migration")
        #expect(p.description == "Import legacy keys into new wallets and report.")
        #expect(p.concurrency == 8)
        #expect(p.lock == LockPolicy(mode: .wait, timeout: .seconds(600)))
        #expect(p.schedule?.source == "30 2 * * mon-fri")
        #expect(p.vars.count == 7)
        #expect(p.vars["batch"]?.required == true)
        #expect(p.vars["env"]?.type == .enum)
        #expect(p.vars["env"]?.choices == ["dev", "staging", "prod"])
        #expect(p.vars["env"]?.defaultValue == .string("dev"))
        #expect(p.vars["limit"]?.defaultValue == .int(100))
        #expect(p.vars["dry_run"]?.defaultValue == .bool(false))
        #expect(p.vars["tags"]?.defaultValue == .list([.string("legacy"), .string("imported")]))
        #expect(p.vars["pause"]?.type == .duration)
        #expect(p.secrets["api_token"]?.source == .env("OMS_API_TOKEN"))
        #expect(p.secrets["kek"]?.required == false)
        guard case .csv(let path, let columns, let header, let delimiter) = p.inputs["keys"]?.source else {
            Issue.record("keys is not a CSV input")
            return
        }
        #expect(path.source == "${{ vars.data_dir }}/keys.csv")
        #expect(columns == ["id", "address", "key"])
        #expect(header && delimiter == ",")
        #expect(
            p.inputs["receipts"]?.source
                == .directory(path: try Template(parsing: "${{ vars.data_dir }}/receipts"), glob: "*.json"))
        #expect(p.defaults.timeout == .seconds(30))
        #expect(p.defaults.retry?.attempts == 5)
        #expect(p.defaults.retry?.backoff == .init(initial: .milliseconds(500), max: .seconds(20), multiplier: 3))
        #expect(p.defaults.retry?.on == [.retryable, .inDoubt])
        #expect(p.defaults.maxFailures == .percent(5))
        #expect(p.steps.map(\.id) == ["prepare", "import", "report"])
        #expect(p.topologicalOrder == ["prepare", "import", "report"])

        let importStep = try #require(p.step("import"))
        #expect(importStep.needs == ["prepare"])
        #expect(importStep.forEach == .input("keys"))
        #expect(importStep.settings.rateLimit == 2.5)
        #expect(importStep.settings.timeout == .seconds(90))
        let effective = p.effectiveSettings(for: importStep)
        #expect(effective.concurrency == 4)
        #expect(effective.maxFailures == .count(10))
        #expect(effective.retry.attempts == 5)
        #expect(effective.timeout == .seconds(90))

        let report = try #require(p.step("report"))
        #expect(report.needs == ["import"])
        #expect(report.forEach == .template(try Template(parsing: "${{ vars.tags }}")))
        #expect(p.effectiveSettings(for: report).retry.attempts == 1)
        #expect(p.effectiveSettings(for: report).concurrency == 8)
        #expect(report.with["enabled"] == .bool(true))
    }

    @Test func stepsRenderWithAContext() throws {
        let p = try Self.load("migrate.yaml")
        let vars = try p.resolveVars(["batch=b7", "env=prod"])
        let item = TemplateValue.object(["id": .string("42"), "address": .string("0xabc"), "key": .string("k")])
        let context = TemplateContext(
            vars: vars, item: item, steps: ["prepare": ["wallet_id": .string("w-1")]], env: ["USER": "Ops"],
            secrets: ["api_token": SecretValue("tok-123")])
        let step = try #require(p.step("import"))
        #expect(try step.shouldRun(in: context))
        let parameters = try step.parameters(in: context)
        #expect(parameters["wallet"] == .string("w-1"))
        #expect(parameters["key"] == .string("tok-123"))
        #expect(parameters["name"] == .string("key-00042"))
        #expect(parameters["note"] == .string("ops"))
        #expect(parameters["nested"] == .list([.string("0xabc"), .int(42)]))
        var noAddress = context
        noAddress.item = .object(["id": .string("1"), "address": .string(""), "key": .string("k")])
        #expect(try !step.shouldRun(in: noAddress))
        let prepare = try #require(p.step("prepare"))
        let prepared = try prepare.parameters(in: context)
        #expect(prepared["label"] == .string("batch-B7"))
        #expect(prepared["tags"] == .list([.string("legacy"), .string("imported")]))
        #expect(prepared["count"] == .int(1))
    }

    @Test func minimalPlaybookUsesDefaults() throws {
        let p = try Self.load("minimal.yaml")
        #expect(p.concurrency == Playbook.defaultConcurrency)
        #expect(p.lock == LockPolicy(mode: .fail))
        #expect(p.schedule == nil)
        let settings = p.effectiveSettings(for: p.steps[0])
        #expect(settings.retry == .none)
        #expect(settings.maxFailures == .count(0))
        #expect(settings.timeout == nil)
    }

    @Test func hashIsTheSHA256OfTheFileBytes() throws {
        let url = Fixtures.url("playbooks/good/minimal.yaml")
        let p = try Playbook.load(contentsOf: url)
        #expect(p.hash == PlaybookHash(of: try Data(contentsOf: url)))
        let edited = try Playbook.parse(String(contentsOf: url, encoding: .utf8) + "\n# edited\n", file: "m")
        #expect(edited.hash != p.hash)
        #expect(PlaybookHash(hex: p.hash.hex) == p.hash)
    }

    @Test func knownActionsAreChecked() {
        let text = "name: x\nsteps:\n  - id: a\n    action: wallet.craete\n"
        let result = Playbook.validate(text, file: "x.yaml", options: .init(knownActions: ["wallet.create"]))
        #expect(
            result.diagnostics.map(\.description) == [
                "x.yaml:4:13: error: unknown action 'wallet.craete'; did you mean 'wallet.create'?"
            ])
    }

    @Test func renderedDiagnosticShowsLineAndCaret() {
        let text = "name: x\nsteps:\n  - id: a\n    action: b\n    nedds: [c]\n"
        let result = Playbook.validate(text, file: "x.yaml")
        #expect(
            result.rendered == """
                x.yaml:5:5: error: unknown key 'nedds' in step 'a'; did you mean 'needs'?
                    nedds: [c]
                    ^
                """)
    }
}

extension PlaybookLoadingTests {
    @Test func emptySectionsAreAllowed() throws {
        let p = try Playbook.parse(
            "name: e\nvars:\nsecrets:\ninputs:\ndefaults:\nsteps:\n  - id: a\n    action: x\n    with:\n",
            file: "e.yaml")
        #expect(p.vars.isEmpty && p.secrets.isEmpty && p.inputs.isEmpty && p.steps[0].with.isEmpty)
    }

    @Test func hugeNumbersAreRefusedNotCrashes() {
        let text = """
            name: big
            concurrency: 99999999999999999999999
            steps:
              - id: a
                action: x
                retry: {attempts: 1000000000}
                with: {n: "${{ 1 | format('%99999999999999999999999d') }}"}
            """
        let result = Playbook.validate(text, file: "big.yaml")
        #expect(
            result.diagnostics.map(\.description) == [
                "big.yaml:2:14: error: 'concurrency' must be an integer, found a number",
                "big.yaml:7:31: error: template: format '%99999999999999999999999d' has a width or precision that is too large",
            ])
        let backoff = RetrySettings.Backoff(initial: .seconds(1), max: .seconds(10), multiplier: 2)
        #expect(backoff.delay(beforeAttempt: 1_000_000_000) == .seconds(10))
    }
}
