import Foundation
import OMSCore
import OMSProtocol
import OMSWallet
import Testing

/// Sign-in's wallet choice: one wallet of the type is used, none is created, several give a selection
/// that is held in memory only and completes once.
@Suite struct PendingWalletSelectionTests {
    /// An account with two Ethereum wallets and one Solana wallet.
    private func accountWithTwoEthereumWallets(_ fixture: SDKFixture) async throws -> [Wallet] {
        let owner = try await fixture.signedIn(email: "many@example.com", scope: fixture.newScope())
        _ = try await owner.wallet.createWallet(reference: "second")
        _ = try await owner.wallet.createWallet(walletType: .solana)
        return try await owner.wallet.listWallets()
    }

    @Test func noWalletCreatesOneAndOneWalletIsUsed() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let counter = CountingTransport(InProcessTransport(handler: fixture.service))
        let sdk = try fixture.wallet(transport: counter)
        let first = try #require(
            try await sdk.wallet.signIn(idToken: try await fixture.devToken(email: "new@example.com")).session)
        #expect(counter.methods == ["CommitVerifier", "CompleteAuth", "CreateWallet"])
        #expect(first.walletType == .ethereum && first.keyOrigin == .enclave)

        let again = try fixture.wallet(transport: counter, scope: fixture.newScope())
        let second = try #require(
            try await again.wallet.signIn(idToken: try await fixture.devToken(email: "new@example.com")).session)
        #expect(counter.methods.suffix(3) == ["CommitVerifier", "CompleteAuth", "UseWallet"])
        #expect(second.wallet == first.wallet)
        // A Solana sign-in of the same account creates its Solana wallet.
        let solana = try #require(
            try await again.wallet.signIn(
                idToken: try await fixture.devToken(email: "new@example.com"), walletType: .solana
            ).session)
        #expect(solana.walletType == .solana)
    }

    @Test func severalWalletsGiveASelectionThatCompletesOnce() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let wallets = try await accountWithTwoEthereumWallets(fixture)
        let sdk = try fixture.wallet()
        let result = try await sdk.wallet.signIn(idToken: try await fixture.devToken(email: "many@example.com"))
        guard case .walletSelection(let selection) = result else {
            Issue.record("expected a wallet selection")
            return
        }
        #expect(selection.wallets.map(\.id) == wallets.filter { $0.walletType == .ethereum }.map(\.id))
        #expect(selection.auth.email == "many@example.com")
        // Memory only: nothing is stored until a wallet is chosen.
        #expect(!FileManager.default.fileExists(atPath: fixture.scope.appendingPathComponent("session.json").path))
        #expect(!FileManager.default.fileExists(atPath: fixture.scope.appendingPathComponent("credential.key").path))
        #expect(sdk.wallet.session == .empty)
        // No uncompressed public key (the credential's, 0x04 and 128 hex digits); an address may start
        // with 0x04 by chance (one in 256), so the prefix alone is not the test.
        #expect(selection.description.firstMatch(of: /0x04[0-9a-fA-F]{128}/) == nil)

        let solanaId = try #require(wallets.first { $0.walletType == .solana }?.id)
        let unavailable = await walletError {
            _ = try await sdk.wallet.completeWalletSelection(selection, walletId: solanaId)
        }
        #expect(unavailable?.code == .walletSelectionUnavailable)

        let chosen = selection.wallets[1]
        let session = try await sdk.wallet.completeWalletSelection(selection, walletId: chosen.id)
        #expect(session.wallet == chosen)
        #expect(sdk.wallet.session.walletAddress == chosen.address)
        #expect(try fixture.wallet().wallet.session.walletAddress == chosen.address)

        let stale = await walletError {
            _ = try await sdk.wallet.completeWalletSelection(selection, walletId: chosen.id)
        }
        #expect(stale?.code == .walletSelectionStale)
        #expect(stale?.operation == "wallet.completeWalletSelection")
    }

    @Test func aSecondCompletionWhileTheFirstRunsIsInFlight() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await accountWithTwoEthereumWallets(fixture)
        let slow = CountingTransport(InProcessTransport(handler: fixture.service), holding: ["UseWallet"])
        let sdk = try fixture.wallet(transport: slow)
        guard
            case .walletSelection(let selection) = try await sdk.wallet.signIn(
                idToken: try await fixture.devToken(email: "many@example.com"))
        else {
            Issue.record("expected a wallet selection")
            return
        }
        let walletId = selection.wallets[0].id
        let first = Task { try await sdk.wallet.completeWalletSelection(selection, walletId: walletId) }
        // The first completion's UseWallet is on the wire (and held there) before the second starts.
        try await slow.waitForRequest("UseWallet")
        let second = await walletError {
            _ = try await sdk.wallet.completeWalletSelection(selection, walletId: walletId)
        }
        slow.release()
        #expect(second?.code == .walletSelectionInFlight)
        #expect(try await first.value.walletId == walletId)
    }

    @Test func signOutAndNewerSignInMakeASelectionStale() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await accountWithTwoEthereumWallets(fixture)
        let sdk = try fixture.wallet()
        let token = { try await fixture.devToken(email: "many@example.com") }
        guard case .walletSelection(let older) = try await sdk.wallet.signIn(idToken: try await token()),
            case .walletSelection(let newer) = try await sdk.wallet.signIn(idToken: try await token())
        else {
            Issue.record("expected wallet selections")
            return
        }
        let superseded = await walletError {
            _ = try await sdk.wallet.completeWalletSelection(older, walletId: older.wallets[0].id)
        }
        #expect(superseded?.code == .walletSelectionStale)
        try sdk.wallet.signOut()
        let afterSignOut = await walletError {
            _ = try await sdk.wallet.completeWalletSelection(newer, walletId: newer.wallets[0].id)
        }
        #expect(afterSignOut?.code == .walletSelectionStale)
    }
}
