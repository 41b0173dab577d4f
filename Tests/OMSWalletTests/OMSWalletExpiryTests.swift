import Foundation
import OMSCore
import OMSProtocol
import OMSWallet
import Testing

/// The expiry observer: once, on the main actor, at `expiresAt` less 30 s, with the session snapshot.
@Suite struct OMSWalletExpiryTests {
    @Test func firesOnceAtExpiryWithTheSnapshot() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let counter = CountingTransport(InProcessTransport(handler: fixture.service))
        let clock = ManualWalletClock()
        let sdk = try fixture.wallet(transport: counter, clock: clock)
        _ = try await sdk.wallet.signIn(idToken: try await fixture.devToken(email: "expiry@example.com"))
        let snapshot = sdk.wallet.session
        let expiresAt = try #require(snapshot.expiresAt)
        let recorder = ExpiryRecorder()
        let observation = sdk.wallet.addSessionExpiredObserver { event in recorder.record(event) }

        // One second before the effective expiry: nothing.
        clock.advance(by: expiresAt.timeIntervalSince(clock.now()) - 31)
        try await Task.sleep(for: .milliseconds(150))
        #expect(recorder.received.isEmpty)
        #expect(sdk.wallet.hasActiveSession)

        clock.advance(by: 1)
        #expect(await recorder.wait(for: 1))
        let event = try #require(recorder.received.first)
        #expect(event.session == snapshot)
        #expect(event.expiredAt == expiresAt.addingTimeInterval(-30))

        // Never again, however far time moves.
        clock.advance(by: 86_400)
        try await Task.sleep(for: .milliseconds(150))
        #expect(recorder.received.count == 1)

        // The expired session is not used: no request leaves.
        let requests = counter.count
        let error = await walletError { _ = try await sdk.wallet.listWallets() }
        #expect(error?.code == .sessionExpired)
        #expect(counter.count == requests)
        // The expired session stays visible until replaced.
        #expect(sdk.wallet.session == snapshot)
        withExtendedLifetime((observation, sdk)) {}
    }

    @Test func cancelStopsIt() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let clock = ManualWalletClock()
        let sdk = try await fixture.signedIn(clock: clock)
        let recorder = ExpiryRecorder()
        let cancelled = sdk.wallet.addSessionExpiredObserver { event in recorder.record(event) }
        cancelled.cancel()
        cancelled.cancel()
        clock.advance(by: 604_800)
        try await Task.sleep(for: .milliseconds(200))
        #expect(recorder.received.isEmpty)
    }

    @Test func releasingTheObservationStopsIt() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let clock = ManualWalletClock()
        let sdk = try await fixture.signedIn(clock: clock)
        let recorder = ExpiryRecorder()
        let kept = ExpiryRecorder()
        let observation = sdk.wallet.addSessionExpiredObserver { event in kept.record(event) }
        _ = sdk.wallet.addSessionExpiredObserver { event in recorder.record(event) }
        clock.advance(by: 604_800)
        #expect(await kept.wait(for: 1))
        #expect(recorder.received.isEmpty)
        // The SDK too: its expiry timer holds it weakly, and Swift may release a local after its last use.
        withExtendedLifetime((observation, sdk)) {}
    }

    @Test func restoredSessionIsObservedAndSignOutStopsTheTimer() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.signedIn()
        let clock = ManualWalletClock()
        let restored = try fixture.wallet(clock: clock)
        let recorder = ExpiryRecorder()
        let observation = restored.wallet.addSessionExpiredObserver { event in recorder.record(event) }
        #expect(restored.wallet.hasActiveSession)

        // The restored session's timer is waiting on the clock; sign-out cancels it.
        try await waitUntil { clock.sleeperCount == 1 }
        try restored.wallet.signOut()
        try await waitUntil { clock.sleeperCount == 0 }
        clock.advance(by: 604_800)
        try await Task.sleep(for: .milliseconds(150))
        #expect(recorder.received.isEmpty)
        withExtendedLifetime((observation, restored)) {}
    }

    @Test func aNewSignInReplacesTheTimer() async throws {
        let fixture = try await SDKFixture.make()
        defer { Task { await fixture.close() } }
        let clock = ManualWalletClock()
        let sdk = try await fixture.signedIn(clock: clock)
        let recorder = ExpiryRecorder()
        let observation = sdk.wallet.addSessionExpiredObserver { event in recorder.record(event) }
        clock.advance(by: 1_000)
        // Signed in again: the new session expires later than the old timer would have fired.
        _ = try await sdk.wallet.signIn(idToken: try await fixture.devToken(email: "user@example.com"))
        let renewed = sdk.wallet.session
        // Wait for the new session's timer alone: the old one may still be counted until its cancellation runs.
        let renewedDeadline = try #require(renewed.expiresAt).addingTimeInterval(-30)
        try await waitUntil { clock.sleeperDeadlines == [renewedDeadline] }
        clock.advance(by: 604_800 - 1_000)
        #expect(await recorder.wait(for: 1))
        try await Task.sleep(for: .milliseconds(100))
        #expect(recorder.received.count == 1)
        #expect(recorder.received.first?.session == renewed)
        withExtendedLifetime((observation, sdk)) {}
    }

    private func waitUntil(_ condition: @Sendable () -> Bool) async throws {
        // A safety net only: in the full suite, tests blocked on child processes can hold both cooperative
        // threads of a 2-core machine for over a minute.
        let deadline = Date().addingTimeInterval(300)
        while !condition() {
            guard Date() < deadline else {
                Issue.record("condition not met in 300 s")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
