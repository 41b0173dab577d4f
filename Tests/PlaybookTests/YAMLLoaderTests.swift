import Testing

@testable import Playbook

@Suite struct YAMLLoaderTests {
    @Test func keepsPositionsStylesAndTags() throws {
        let text = """
            a: plain
            b: 'single'
            c: "double"
            d: |
              literal
            e: !!str 10
            list:
              - 1
              - {k: v}
            """
        let root = try #require(YAMLLoader().load(text, file: "t.yaml").root)
        #expect(root.location == SourceLocation(line: 1, column: 1))
        #expect(root["a"]?.kind == .scalar("plain", .plain))
        #expect(root["a"]?.location == SourceLocation(line: 1, column: 4))
        #expect(root["b"]?.kind == .scalar("single", .singleQuoted))
        #expect(root["c"]?.kind == .scalar("double", .doubleQuoted))
        #expect(root["d"]?.kind == .scalar("literal\n", .literal))
        #expect(root["e"]?.tag == "tag:yaml.org,2002:str")
        let list = try #require(root["list"]?.sequence)
        #expect(list.map(\.location) == [SourceLocation(line: 8, column: 5), SourceLocation(line: 9, column: 5)])
        #expect(list[1]["k"]?.location == SourceLocation(line: 9, column: 9))
        #expect(root.mapping?.map { $0.key.scalar } == ["a", "b", "c", "d", "e", "list"])
    }

    @Test func aliasesExpandWithinTheBound() throws {
        let text = "base: &b {x: 1, y: [2, 3]}\ncopy: *b\n"
        let root = try #require(YAMLLoader().load(text, file: "t.yaml").root)
        #expect(root["copy"]?["y"]?.sequence?.count == 2)
        #expect(root["copy"]?.location == SourceLocation(line: 2, column: 7))
        let small = YAMLLoader(maxExpandedNodes: 10).load(text, file: "t.yaml")
        #expect(small.root == nil || !small.diagnostics.isEmpty)
        #expect(small.diagnostics.map(\.message) == ["alias '*b' expands the document beyond 10 nodes (alias bomb?)"])
    }

    @Test func refusesDuplicateAndComplexKeys() {
        let result = YAMLLoader().load("a: 1\nb: 2\na: 3\n? [x]\n: 4\n", file: "t.yaml")
        #expect(
            result.diagnostics.map(\.description) == [
                "t.yaml:3:1: error: duplicate key 'a' (first defined at line 1)",
                "t.yaml:4:3: error: mapping keys must be scalars, found a list",
            ])
    }

    @Test func emptyInputIsAnEmptyPlaybook() {
        let result = Playbook.validate("", file: "e.yaml")
        #expect(result.diagnostics.map(\.description) == ["e.yaml:1:1: error: the playbook is empty"])
    }

    @Test func editDistance() {
        #expect(Suggestion.editDistance("needs", "nedds") == 1)
        #expect(Suggestion.editDistance("needs", "neesd") == 1)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.closest(to: "concurency", in: ["concurrency", "name"]) == "concurrency")
        #expect(Suggestion.closest(to: "zzz", in: ["concurrency", "name"]) == nil)
    }
}
