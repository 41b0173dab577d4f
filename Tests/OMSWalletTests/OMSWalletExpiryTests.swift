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
        let deadline = expiresAt.addingTimeInterval(-30)
        try await waitUntil { clock.sleeperDeadlines == [deadline] }

        // One second before the effective expiry: the timer still waits for its deadline, so nothing fired.
        clock.advance(by: expiresAt.timeIntervalSince(clock.now()) - 31)
        #expect(clock.sleeperDeadlines == [deadline])
        #expect(recorder.received.isEmpty)
        #expect(sdk.wallet.hasActiveSession)

        clock.advance(by: 1)
        #expect(await recorder.wait(for: 1))
        let event = try #require(recorder.received.first)
        #expect(event.session == snapshot)
        #expect(event.expiredAt == deadline)

        // Never again, however far time moves: no timer is left to wake (the event is sent after the
        // timer is done, so a new one would be waiting by now).
        #expect(clock.sleeperCount == 0)
        clock.advance(by: 86_400)
        #expect(clock.sleeperCount == 0)
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
        // Registered after the cancelled one, so it is called after it: once it has the event, the
        // cancelled observer's turn has passed.
        let kept = ExpiryRecorder()
        let observation = sdk.wallet.addSessionExpiredObserver { event in kept.record(event) }
        cancelled.cancel()
        cancelled.cancel()
        clock.advance(by: 604_800)
        #expect(await kept.wait(for: 1))
        #expect(recorder.received.isEmpty)
        withExtendedLifetime((observation, sdk)) {}
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
        // No timer waits on the clock, so moving it wakes nothing.
        clock.advance(by: 604_800)
        #expect(clock.sleeperCount == 0)
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
        // The old timer was cancelled before the clock moved (only the new deadline was waiting), so the
        // one event is the new session's and no timer is left.
        #expect(clock.sleeperCount == 0)
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
