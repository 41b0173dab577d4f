import Foundation
import HomeLayout
import OMSCore
import OMSEmbedded
import OMSProtocol
import OMSWallet
import Testing
import WalletCrypto

/// Restoration of the stored session when an `OMSWallet` is made: only an unexpired session whose
/// credential key restores is activated; protected calls fail locally otherwise.
@Suite struct OMSWalletRestorationTests {
    /// A signed-in scope, then a fresh SDK on it through a counting transport.
    private func reopen(_ fixture: SDKFixture, clock: any OMSWalletClock = SystemWalletClock()) throws -> (
        OMSWallet, CountingTransport
    ) {
        let counter = CountingTransport(InProcessTransport(handler: fixture.service))
        return (try fixture.wallet(transport: counter, clock: clock), counter)
    }

    private func expectNotRestored(_ sdk: OMSWallet, _ counter: CountingTransport, scope: URL) async {
        #expect(sdk.wallet.session == .empty)
        #expect(!sdk.wallet.hasActiveSession)
        let error = await walletError { _ = try await sdk.wallet.listWallets() }
        #expect(error?.code == .sessionMissing)
        #expect(error?.operation == "wallet.listWallets")
        #expect(counter.count == 0)
        #expect(!FileManager.default.fileExists(atPath: scope.appendingPathComponent("session.json").path))
    }

    @Test func freshScopeHasNoSession() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let (sdk, counter) = try reopen(fixture)
        await expectNotRestored(sdk, counter, scope: fixture.scope)
        for operation in ["getIdToken", "listAccess", "createWallet"] {
            let error = await walletError {
                switch operation {
                case "getIdToken": _ = try await sdk.wallet.getIdToken()
                case "listAccess": _ = try await sdk.wallet.listAccess()
                default: _ = try await sdk.wallet.createWallet()
                }
            }
            #expect(error?.code == .sessionMissing)
            #expect(error?.operation == "wallet.\(operation == "listAccess" ? "listAccessPage" : operation)")
        }
        #expect(counter.count == 0)
    }

    @Test func unexpiredSessionIsRestoredWithItsKey() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let original = try await fixture.signedIn()
        let (sdk, counter) = try reopen(fixture)
        #expect(sdk.wallet.session == original.wallet.session)
        #expect(sdk.wallet.hasActiveSession)
        // The restored key signs: the core accepts it as the same credential.
        let wallets = try await sdk.wallet.listWallets()
        #expect(wallets.map(\.address) == [original.wallet.session.walletAddress])
        #expect(counter.methods == ["ListWallets"])
    }

    @Test func signOutSendsNothingAndForgetsTheScope() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.signedIn()
        let (sdk, counter) = try reopen(fixture)
        #expect(sdk.wallet.hasActiveSession)
        try sdk.wallet.signOut()
        #expect(counter.count == 0)
        try sdk.wallet.signOut()
        let remaining = try FileManager.default.contentsOfDirectory(atPath: fixture.scope.path)
        #expect(remaining.isEmpty)
    }

    @Test func filesArePrivateAndHoldNoPrivateKey() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.signedIn()
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.scope.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        for name in ["session.json", "credential.key", "wrapping.key"] {
            let path = fixture.scope.appendingPathComponent(name).path
            #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        }
        let json =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: fixture.scope.appendingPathComponent("session.json"))) as? [String: Any]
        let keys = Set(json?.keys.map { $0 } ?? [])
        #expect(
            keys == [
                "version", "projectId", "credentialId", "walletId", "walletAddress", "walletType", "keyOrigin",
                "expiresAt", "auth",
            ])
        // The key file is 5 + 12 + 32 + 16 bytes of ciphertext, not a raw or PEM key.
        let keyFile = try Data(contentsOf: fixture.scope.appendingPathComponent("credential.key"))
        #expect(keyFile.count == 65)
        #expect(keyFile.prefix(4) == Data("WOSK".utf8))
    }

    @Test func expiredSessionIsNotRestored() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let original = try await fixture.signedIn()
        let expiresAt = try #require(original.wallet.session.expiresAt)

        // 31 s before expiry: still restored (the SDK stops 30 s early).
        let early = ManualWalletClock(expiresAt.addingTimeInterval(-31))
        let (restored, _) = try reopen(fixture, clock: early)
        #expect(restored.wallet.hasActiveSession)
        // 1 s later it counts as expired: protected calls fail locally.
        early.advance(by: 1)
        let counter = CountingTransport(InProcessTransport(handler: fixture.service))
        let expiredSDK = try fixture.wallet(
            transport: counter, clock: ManualWalletClock(expiresAt.addingTimeInterval(-29)))
        await expectNotRestored(expiredSDK, counter, scope: fixture.scope)
        // The files of the expired session were removed.
        #expect(!FileManager.default.fileExists(atPath: fixture.scope.appendingPathComponent("credential.key").path))
        let expiredCall = await walletError { _ = try await restored.wallet.getIdToken() }
        #expect(expiredCall?.code == .sessionExpired)
        #expect(expiredCall?.operation == "wallet.getIdToken")
    }

    @Test func missingKeyFileIsNotRestored() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.signedIn()
        try FileManager.default.removeItem(at: fixture.scope.appendingPathComponent("credential.key"))
        let (sdk, counter) = try reopen(fixture)
        await expectNotRestored(sdk, counter, scope: fixture.scope)
    }

    @Test func missingWrappingKeyIsNotRestored() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.signedIn()
        try FileManager.default.removeItem(at: fixture.scope.appendingPathComponent("wrapping.key"))
        let (sdk, counter) = try reopen(fixture)
        await expectNotRestored(sdk, counter, scope: fixture.scope)
    }

    @Test(arguments: [5, 20, 64]) func corruptedKeyFileIsNotRestored(_ offset: Int) async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.signedIn()
        let url = fixture.scope.appendingPathComponent("credential.key")
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[offset] ^= 0x01
        try Data(bytes).write(to: url)
        let (sdk, counter) = try reopen(fixture)
        await expectNotRestored(sdk, counter, scope: fixture.scope)
    }

    @Test func keyOfAnotherSessionIsNotRestored() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.signedIn()
        let otherScope = fixture.newScope()
        _ = try await fixture.signedIn(email: "other@example.com", scope: otherScope)
        for name in ["credential.key", "wrapping.key"] {
            let target = fixture.scope.appendingPathComponent(name)
            try FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: otherScope.appendingPathComponent(name), to: target)
        }
        let (sdk, counter) = try reopen(fixture)
        await expectNotRestored(sdk, counter, scope: fixture.scope)
    }

    @Test func undecodableSessionFileIsNotRestored() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.signedIn()
        try Data("{not json".utf8).write(to: fixture.scope.appendingPathComponent("session.json"))
        let (sdk, counter) = try reopen(fixture)
        await expectNotRestored(sdk, counter, scope: fixture.scope)
    }

    @Test func unreadableStorageIsAStorageError() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.signedIn()
        // A directory where session.json should be cannot be read, even by root.
        let session = fixture.scope.appendingPathComponent("session.json")
        try FileManager.default.removeItem(at: session)
        try FileManager.default.createDirectory(at: session, withIntermediateDirectories: false)
        let error = await walletError { _ = try fixture.wallet() }
        #expect(error?.code == .storageError)
        #expect(error?.operation == "OMSWallet.init")
        #expect(error?.description.contains("session.json") == true)
    }

    @Test func invalidPublishableKeyIsAValidationError() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        for key in ["YOUR_PUBLISHABLE_KEY", "pk_local_sdbx_only", "pk_test_sdbx_a_b", "pk_sdbx__key", ""] {
            let error = await walletError {
                _ = try OMSWallet(
                    publishableKey: key, core: fixture.core, configuration: fixture.configuration())
            }
            #expect(error?.code == .validationError)
            #expect(error?.message == "Invalid publishableKey.")
        }
    }

    @Test func sessionOfAnotherProjectIsNotRestored() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.signedIn()
        let other = try WaasService.initialize(home: WalletHome(url: fixture.home), project: "other")
        let sdk = try OMSWallet(
            publishableKey: other.project.publishableKey, core: fixture.core, configuration: fixture.configuration())
        #expect(sdk.wallet.session == .empty)
    }
}
