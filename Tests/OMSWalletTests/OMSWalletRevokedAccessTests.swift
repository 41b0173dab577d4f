import Foundation
import OMSCore
import OMSProtocol
import OMSWallet
import Testing

/// `listAccess(includeRevoked: true)`: the walletops extension through the SDK (docs/protocol.md); without
/// it the seed page's behaviour (live grants only) is unchanged.
@Suite struct OMSWalletRevokedAccessTests {
    @Test(arguments: CoreKind.allCases) func revokedSessionsAreListedOnlyWhenAsked(_ kind: CoreKind) async throws {
        let fixture = try await SDKFixture.make(kind)
        defer { Task { await fixture.close() } }
        let omsWallet = try await fixture.signedIn(email: "owner@example.com")
        let remote = try await fixture.registerRemoteCredential()
        var sessions: [String] = []
        for _ in 0..<2 {
            sessions.append(
                try await omsWallet.wallet.authorizeRemoteAccess(
                    credentialId: remote.credentialId, network: .polygonAmoy,
                    grants: [.nativeTransfer(to: "0x1111111111111111111111111111111111111111", limit: "1000")],
                    expiresAt: ISO8601DateFormatter().string(from: Date().addingTimeInterval(3_600))
                ).sessionId)
        }
        try await omsWallet.wallet.revokeAccess(credentialId: remote.credentialId, sessionId: sessions[0])

        func remoteSessions(_ grants: [AccessGrant]) -> [(String, String?)] {
            grants.compactMap { grant in
                if case .remote(let remote) = grant { return (remote.sessionId, remote.credential.revokedAt) }
                return nil
            }
        }
        let live = remoteSessions(try await omsWallet.wallet.listAccess())
        #expect(live.map(\.0) == [sessions[1]] && live.allSatisfy { $0.1 == nil })
        let all = remoteSessions(try await omsWallet.wallet.listAccess(includeRevoked: true))
        #expect(all.map(\.0) == sessions)
        #expect(all[0].1 != nil && all[1].1 == nil)
        // Page by page, the same.
        var paged: [AccessGrant] = []
        for try await page in omsWallet.wallet.listAccessPages(pageSize: 1, type: .remote, includeRevoked: true) {
            paged += page.grants
        }
        #expect(remoteSessions(paged).map(\.0) == sessions)
    }
}
