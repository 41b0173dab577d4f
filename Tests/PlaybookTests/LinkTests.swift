import Testing
@testable import Playbook

@Suite struct PlaybookLinkTests {
    @Test func moduleLinks() { #expect(Bool(true)) }
}
