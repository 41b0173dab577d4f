import Testing
@testable import WalletOpsCLI

@Suite struct WalletOpsCLILinkTests {
    @Test func moduleLinks() { #expect(Bool(true)) }
}
