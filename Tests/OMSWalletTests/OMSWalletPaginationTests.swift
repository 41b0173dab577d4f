import Foundation
import OMSCore
import OMSProtocol
import OMSWallet
import Testing

/// Lists that span several server pages (the core's default page is 50 entries).
@Suite struct OMSWalletPaginationTests {
    @Test(arguments: CoreKind.allCases) func listWalletsFollowsEveryCursor(_ kind: CoreKind) async throws {
        let fixture = try await SDKFixture.make(kind)
        defer { Task { await fixture.close() } }
        let counter = CountingTransport(InProcessTransport(handler: fixture.service))
        let owner = try fixture.wallet(transport: counter, scope: fixture.newScope())
        _ = try await owner.wallet.signIn(idToken: try await fixture.devToken(email: "pages@example.com"))
        var created = [try #require(owner.wallet.session.walletId)]
        for index in 0..<54 {
            created.append(try await owner.wallet.createWallet(reference: "w\(index)").wallet.id)
        }
        let before = counter.methods.filter { $0 == "ListWallets" }.count
        let wallets = try await owner.wallet.listWallets()
        #expect(wallets.map(\.id) == created)
        #expect(counter.methods.filter { $0 == "ListWallets" }.count - before == 2)

        // Sign-in sees the wallets past CompleteAuth's first page too: all 55 are offered.
        let sdk = try fixture.wallet(scope: fixture.newScope())
        guard
            case .walletSelection(let selection) = try await sdk.wallet.signIn(
                idToken: try await fixture.devToken(email: "pages@example.com"))
        else {
            Issue.record("expected a wallet selection")
            return
        }
        #expect(selection.wallets.map(\.id) == created)
        let chosen = try await sdk.wallet.completeWalletSelection(selection, walletId: created[52])
        #expect(chosen.wallet.reference == "w51")
    }

    @Test func storageDirectoryInitializerUsesTheScope() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let scope = fixture.newScope()
        let sdk = try OMSWallet(publishableKey: fixture.publishableKey, core: fixture.core, storageDirectory: scope)
        _ = try await sdk.wallet.signIn(idToken: try await fixture.devToken(email: "scope@example.com"))
        #expect(sdk.storageDirectory == scope)
        #expect(FileManager.default.fileExists(atPath: scope.appendingPathComponent("session.json").path))
        let again = try OMSWallet(publishableKey: fixture.publishableKey, core: fixture.core, storageDirectory: scope)
        #expect(again.wallet.session == sdk.wallet.session)
    }
}
