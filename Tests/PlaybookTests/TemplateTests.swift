import Testing

@testable import Playbook

@Suite struct TemplateTests {
    static let context = TemplateContext(
        vars: [
            "name": .string("Alice"), "count": .int(7), "tags": .list([.string("a"), .string("b")]),
            "flag": .bool(false), "empty": .string(""),
        ],
        item: .object(["id": .string("42"), "first name": .string("Bob"), "n": .object(["x": .int(1)])]),
        steps: ["create": ["wallet_id": .string("w-9"), "ids": .list([.int(1), .int(2)])]],
        env: ["HOME": "/home/ops"],
        secrets: ["token": SecretValue("s3cr3t")])

    static func render(_ text: String, secrets: Bool = false) throws -> String {
        var context = Self.context
        context.allowsSecrets = secrets
        return try Template(parsing: text).render(in: context)
    }

    @Test func rendersMixedTextAndExpressions() throws {
        #expect(try Self.render("plain text") == "plain text")
        #expect(try Self.render("hi ${{ vars.name }}, you have ${{vars.count}} items") == "hi Alice, you have 7 items")
        #expect(try Self.render("${{ item.id }}-${{ item['first name'] }}-${{ item.n.x }}") == "42-Bob-1")
        #expect(try Self.render("${{ steps.create.outputs.wallet_id }} ${{ env.HOME }}") == "w-9 /home/ops")
        #expect(try Self.render("${{ vars.tags }}") == "[\"a\",\"b\"]")
        #expect(try Self.render("${{ steps.create.outputs.ids[1] }}") == "2")
        #expect(try Self.render("cost: $5 and $${{ literal }}") == "cost: $5 and ${{ literal }}")
        #expect(try Self.render("${{ '}}' }}") == "}}")
    }

    @Test func filters() throws {
        #expect(try Self.render("${{ vars.name | lower }}/${{ vars.name | upper }}") == "alice/ALICE")
        #expect(try Self.render("${{ vars.missing | default('none') }}") == "none")
        #expect(try Self.render("${{ vars.empty | default('fallback') }}") == "fallback")
        #expect(try Self.render("${{ env.NOPE | default('x') | upper }}") == "X")
        #expect(try Self.render("${{ item.id | format('%05d') }}") == "00042")
        #expect(try Self.render("${{ vars.count | format('%-4d|') }}") == "7   |")
        #expect(try Self.render("${{ vars.count | format('0x%04X') }}") == "0x0007")
        #expect(try Self.render("${{ vars.count | format('%.2f') }}") == "7.00")
        #expect(try Self.render("${{ vars.name | format('[%6s]') }}") == "[ Alice]")
        #expect(try Self.render("${{ vars.tags | join(', ') }}") == "a, b")
        #expect(try Self.render("${{ '  x ' | trim }}") == "x")
        #expect(try Self.render("${{ -3 | format('%+05d') }}") == "-0003")
    }

    @Test func keepsTypesForASingleExpression() throws {
        #expect(
            try Template(parsing: "${{ vars.tags }}").evaluate(in: Self.context) == .list([.string("a"), .string("b")]))
        #expect(try Template(parsing: "${{ vars.count }}").evaluate(in: Self.context) == .int(7))
        #expect(try Template(parsing: "n=${{ vars.count }}").evaluate(in: Self.context) == .string("n=7"))
    }

    @Test func conditions() throws {
        func truth(_ text: String) throws -> Bool {
            try Template(parsing: "${{ \(text) }}").evaluate(in: Self.context).isTruthy
        }
        #expect(try truth("vars.name == 'Alice'"))
        #expect(try truth("vars.count == 7"))
        #expect(try truth("item.id == 42"))
        #expect(try truth("item.id == 42.0"))
        #expect(try !truth("item.id == '42.0'"))
        #expect(try truth("vars.count != '7x'"))
        #expect(try !truth("vars.flag"))
        #expect(try truth("!vars.flag && (vars.count != 0 || false)"))
        #expect(try !truth("vars.empty"))
        #expect(try truth("vars.missing | default(true)"))
    }

    @Test func secretsOnlyWhereAllowed() throws {
        #expect(try Self.render("Bearer ${{ secrets.token }}", secrets: true) == "Bearer s3cr3t")
        #expect(throws: TemplateEvaluationError("secrets can only be used in a step's 'with' parameters")) {
            try Self.render("${{ secrets.token }}")
        }
    }

    @Test func evaluationErrorsNeverQuoteAValue() throws {
        let error = #expect(throws: TemplateEvaluationError.self) {
            try Self.render("${{ secrets.token | format('%d') }}", secrets: true)
        }
        #expect(error?.message == "format '%d' needs an integer, got text")
        #expect(error?.message.contains("s3cr3t") == false)
    }

    @Test func evaluationErrorsNameThePath() {
        #expect(throws: TemplateEvaluationError("vars.nope is not set")) { try Self.render("${{ vars.nope }}") }
        #expect(throws: TemplateEvaluationError("environment variable NOPE is not set")) {
            try Self.render("${{ env.NOPE }}")
        }
        #expect(throws: TemplateEvaluationError("step 'create' has no output 'x'")) {
            try Self.render("${{ steps.create.outputs.x }}")
        }
        #expect(throws: TemplateEvaluationError("item.zip: no field 'zip'")) { try Self.render("${{ item.zip }}") }
        #expect(throws: TemplateEvaluationError("format '%d' needs an integer, got text")) {
            try Self.render("${{ vars.name | format('%d') }}")
        }
        #expect(throws: TemplateEvaluationError("filter 'join' needs a list, got text")) {
            try Self.render("${{ vars.name | join(',') }}")
        }
    }

    @Test func syntaxErrorsCarryOffsets() {
        let cases: [(String, String, Int)] = [
            ("abc ${{ vars.x", "unclosed '${{' (missing '}}')", 4),
            ("${{ }}", "empty expression in '${{ }}'", 0),
            ("${{ vars.x | nope }}", "unknown filter 'nope'", 13),
            ("${{ vars.x | uppr }}", "unknown filter 'uppr'; did you mean 'upper'?", 13),
            ("${{ vars.x | default }}", "filter 'default' takes 1 argument: default('value')", 13),
            ("${{ vars.x | lower('a') }}", "filter 'lower' takes no arguments: lower", 13),
            ("${{ vars.x | format('%d %d') }}", "format '%d %d' has more than one conversion", 20),
            ("${{ vars.x | format('abc') }}", "format 'abc' has no conversion such as %d or %s", 20),
            ("${{ vars. }}", "expected a name after '.'", 10),
            ("${{ vars.x vars.y }}", "unexpected 'vars'", 11),
            ("${{ 'open }}", "unclosed '${{' (missing '}}')", 0),
            ("${{ a ~ b }}", "unexpected character '~'", 6),
            ("${{ vars.x | default(vars.y) }}", "filter arguments must be literals, found 'vars'", 21),
        ]
        for (text, message, offset) in cases {
            #expect(throws: TemplateSyntaxError(message, offset: offset), "\(text)") { try Template(parsing: text) }
        }
    }

    @Test func referencesAndFilters() throws {
        let t = try Template(parsing: "${{ vars.a }}-${{ steps.s.outputs.o | lower }}")
        #expect(t.references.map(\.path) == [["vars", "a"], ["steps", "s", "outputs", "o"]])
        #expect(t.references.map(\.offset) == [4, 18])
        #expect(t.filters.map(\.filter) == [.lower])
        #expect(try Template(parsing: "x").isLiteral)
    }
}

/// `now` and the `date('...')` filter (issue 26): a run's time, formatted in UTC, e.g. for a folder per month.
@Suite struct TemplateDateTests {
    // 2026-11-30T23:59:59Z, a second before December.
    static let context = TemplateContext(vars: ["when": .string("2026-02-03T04:05:06+01:00")], now: 1_796_083_199)

    static func render(_ text: String) throws -> String { try Template(parsing: text).render(in: context) }

    @Test func formatsNowAndTimesInUTC() throws {
        #expect(try Self.render("reports/${{ now | date('%Y-%m') }}") == "reports/2026-11")
        #expect(try Self.render("${{ now | date('%F %T') }}") == "2026-11-30 23:59:59")
        #expect(try Self.render("${{ now | date('%Y%m%d-%H%M%S day %j, 100%%') }}") == "20261130-235959 day 334, 100%")
        #expect(try Self.render("${{ now | date('%s') }}") == "1796083199")
        #expect(try Self.render("${{ vars.when | date('%F %H:%M') }}") == "2026-02-03 03:05")
        #expect(try Template(parsing: "${{ now }}").evaluate(in: Self.context) == .int(1_796_083_199))
        let december = TemplateContext(now: 1_796_083_200)
        #expect(try Template(parsing: "${{ now | date('%Y-%m') }}").render(in: december) == "2026-12")
    }

    @Test func badFormatsAreLoadErrorsAndBadInputsSaySo() {
        #expect(
            throws: TemplateSyntaxError(
                "date format '%Y-%q': unknown conversion '%q' (use %Y %m %d %H %M %S %j %F %T %s %%)", offset: 19)
        ) { try Template(parsing: "${{ now | date('%Y-%q') }}") }
        #expect(throws: TemplateSyntaxError("date format '%Y-%' ends with '%'", offset: 19)) {
            try Template(parsing: "${{ now | date('%Y-%') }}")
        }
        #expect(throws: TemplateSyntaxError("filter 'date' takes 1 argument: date('%Y-%m')", offset: 10)) {
            try Template(parsing: "${{ now | date }}")
        }
        let template = try? Template(parsing: "${{ vars.when | date('%Y') }}")
        do {
            _ = try template?.render(in: TemplateContext(vars: ["when": .string("last tuesday")]))
            Issue.record("a non-time was formatted")
        } catch {
            #expect(error.message.hasPrefix("filter 'date' needs a time (Unix seconds, as now, or RFC 3339 text)"))
        }
    }
}
