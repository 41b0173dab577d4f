import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// GetSessionUsage's `since`/`until` (a walletops extension, docs/protocol.md "Usage in a period"): each
/// grant's `usedInPeriod` is the sum of the executed transfers it paid with `since <= executed < until`.
@Suite struct AccessPeriodUsageTests {
    static let start: Int64 = 1_793_491_200  // 2026-11-01T00:00:00Z

    @Test(arguments: AccessTransport.allCases)
    func usedInAPeriodIsTheSumOfItsTransfersAtTheEdges(_ transport: AccessTransport) async throws {
        let clock = ManualClock(Self.start - 10)
        let world = try await AccessWorld.make(transport, clock: clock)
        defer { world.remove() }
        let remote = try await world.remote(lifetime: 86_400 * 3)
        let session = try await world.authorize(
            remote,
            grants: [
                .nativeTransfer(to: AccessWorld.receiver, limit: "1000000"),
                .erc20Transfer(token: AccessWorld.token, limit: "1000000"),
            ], seconds: 86_400 * 2
        ).sessionId
        func sendToken(_ amount: String) async throws {
            let prepared = try await remote.call(
                .prepareEthereumTransaction,
                PrepareEthereumTransactionRequest.erc20Transfer(
                    walletId: world.wallet.id, network: AccessWorld.amoy, sessionId: session,
                    token: AccessWorld.token, to: AccessWorld.otherReceiver, amount: amount),
                as: PrepareEthereumTransactionResponse.self)
            _ = try await remote.call(
                .execute, ExecuteRequest(transactionId: prepared.transactionId), as: TransactionStatusResponse.self)
        }
        // The period is 2026-11-01 (one UTC day). A transfer one second before it, at its first second,
        // inside, at its last second, and at its end (excluded).
        func at(_ time: Int64) { clock.advance(by: time - clock.now()) }
        at(Self.start - 1)
        _ = try await world.send(remote, session: session, value: "1")
        try await sendToken("10")
        at(Self.start)
        _ = try await world.send(remote, session: session, value: "20")
        try await sendToken("200")
        at(Self.start + 3600)
        _ = try await world.send(remote, session: session, value: "300")
        at(Self.start + 86_399)
        try await sendToken("4000")
        at(Self.start + 86_400)
        _ = try await world.send(remote, session: session, value: "50000")
        try await sendToken("600000")

        func usage(since: String?, until: String?) async throws -> [UsageEntry] {
            try await world.owner.call(
                .getSessionUsage,
                GetSessionUsageRequest(sessionId: session, network: AccessWorld.amoy, since: since, until: until),
                as: GetSessionUsageResponse.self
            ).entries
        }
        let day = try await usage(since: "2026-11-01T00:00:00Z", until: "2026-11-02T00:00:00Z")
        #expect(day.map(\.usedInPeriod) == ["320", "4200"])
        #expect(day.map(\.used) == ["50321", "604210"], "the cumulative figures stay beside")
        let openStart = try await usage(since: nil, until: "2026-11-01T00:00:00Z")
        #expect(openStart.map(\.usedInPeriod) == ["1", "10"])
        let openEnd = try await usage(since: "2026-11-02T00:00:00Z", until: nil)
        #expect(openEnd.map(\.usedInPeriod) == ["50000", "600000"])
        let none = try await usage(since: nil, until: nil)
        #expect(none.map(\.usedInPeriod) == [nil, nil], "no period asked: the OMS reply")
        // The remote credential may ask too (its own session).
        let own = try await remote.call(
            .getSessionUsage,
            GetSessionUsageRequest(
                sessionId: session, network: AccessWorld.amoy, since: "2026-11-01T00:00:00Z",
                until: "2026-11-01T00:00:01Z"), as: GetSessionUsageResponse.self)
        #expect(own.entries.map(\.usedInPeriod) == ["20", "200"])
        await expectRefusal(.invalidRequest) { _ = try await usage(since: "November", until: nil) }
        await expectRefusal(.invalidRequest) {
            _ = try await usage(since: "2026-12-01T00:00:00Z", until: "2026-11-01T00:00:00Z")
        }
    }

    /// A transfer executed before migration 10 has no recorded allowance: it is counted under the grant
    /// that pays for it now.
    @Test func transfersBeforeTheMigrationAreMatchedToTheirGrant() throws {
        let grants = try AccessRules.grants([
            .nativeTransfer(to: AccessWorld.receiver, limit: "100"),
            .erc20Transfer(token: AccessWorld.token, to: AccessWorld.receiver, limit: "100"),
            .erc20Transfer(token: AccessWorld.token, limit: "100"),
        ])
        let transfers = [
            ExecutedTransfer(token: nil, to: AccessWorld.receiver, amount: TokenAmount(3), grantKey: nil),
            ExecutedTransfer(token: AccessWorld.token, to: AccessWorld.receiver, amount: TokenAmount(5), grantKey: nil),
            ExecutedTransfer(
                token: AccessWorld.token, to: AccessWorld.otherReceiver, amount: TokenAmount(7), grantKey: nil),
            ExecutedTransfer(
                token: nil, to: AccessWorld.receiver, amount: TokenAmount(11),
                grantKey: "native:\(AccessWorld.receiver)"),
        ]
        let sums = WaasService.usage(transfers, grants: grants)
        #expect(grants.map { sums[$0.key]?.decimalString } == ["14", "5", "7"])
    }
}
