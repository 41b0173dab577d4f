import Testing

@testable import Runner

@Suite struct RunnerLinkTests {
    @Test func moduleLinks() { #expect(Bool(true)) }
}
