import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// The walletops `includeRevoked` extension (docs/protocol.md): the wallet's owner may list revoked grants
/// and read a revoked session and what it spent; nobody else may, and without the flag nothing changes.
@Suite struct AccessRevokedListingTests {
    func listAll(_ world: AccessWorld, includeRevoked: Bool?, limit: Int? = nil, type: CredentialType? = nil)
        async throws -> [CredentialInfo]
    {
        var all: [CredentialInfo] = []
        var cursor: String?
        repeat {
            let page = try await world.owner.call(
                .listAccess,
                ListAccessRequest(
                    walletId: world.wallet.id, page: Page.optional(limit: limit, cursor: cursor), type: type,
                    includeRevoked: includeRevoked),
                as: ListAccessResponse.self)
            all += page.credentials
            cursor = page.page?.hasMore == true ? page.page?.cursor : nil
        } while cursor != nil
        return all
    }

    @Test(arguments: AccessTransport.allCases)
    func theOwnerListsAndReadsRevokedSessions(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let (_, secondAuth) = try await world.core.signIn(email: "owner@example.com")
        let remote = try await world.remote(name: "Games")
        let kept = try await world.authorize(remote).sessionId
        let gone = try await world.authorize(remote).sessionId
        _ = try await world.send(remote, session: gone, value: "400")
        let beforeRevoking = world.now
        for (target, session) in [(remote.signer!.credentialId, gone), (secondAuth.credential.credentialId, nil)] {
            _ = try await world.owner.call(
                .revokeAccess,
                RevokeAccessRequest(targetCredentialId: target, walletId: world.wallet.id, sessionId: session),
                as: OKResponse.self)
        }

        // Without the flag (absent or false): live grants only, no revokedAt.
        for flag: Bool? in [nil, false] {
            let live = try await listAll(world, includeRevoked: flag)
            #expect(live.map(\.credentialId) == [world.ownerId, remote.signer!.credentialId])
            #expect(live.allSatisfy { $0.revokedAt == nil })
        }
        // With it: every grant in grant order, page by page, the revoked ones with their revocation time.
        for limit in [nil, 1, 2] {
            let all = try await listAll(world, includeRevoked: true, limit: limit)
            #expect(
                all.map { $0.sessionId ?? $0.credentialId } == [
                    world.ownerId, secondAuth.credential.credentialId, kept, gone,
                ])
            #expect(all.map { $0.revokedAt != nil } == [false, true, false, true])
            let revokedAt = try #require(all[3].revokedAt.flatMap(RFC3339.parse))
            // Between the revocation request and now (a loaded machine may take minutes to get here).
            #expect(revokedAt >= beforeRevoking && revokedAt <= world.now)
        }
        #expect(try await listAll(world, includeRevoked: true, type: .remote).map(\.sessionId) == [kept, gone])

        // GetSession and GetSessionUsage of the revoked session: only with the flag, only for the owner.
        await expectRefusal(.keyNotFound, "owner, no flag") {
            _ = try await world.owner.call(.getSession, GetSessionRequest(sessionId: gone), as: GetSessionResponse.self)
        }
        let session = try await world.owner.call(
            .getSession, GetSessionRequest(sessionId: gone, includeRevoked: true), as: GetSessionResponse.self
        ).session
        #expect(session.revokedAt != nil && session.chainId == AccessWorld.amoy)
        let live = try await world.owner.call(
            .getSession, GetSessionRequest(sessionId: kept, includeRevoked: true), as: GetSessionResponse.self
        ).session
        #expect(live.revokedAt == nil)
        let usage = try await world.owner.call(
            .getSessionUsage, GetSessionUsageRequest(sessionId: gone, network: AccessWorld.amoy, includeRevoked: true),
            as: GetSessionUsageResponse.self
        ).entries
        #expect(usage.map(\.used) == ["400"] && usage.map(\.remaining) == ["600"])
        await expectRefusal(.keyNotFound, "the remote credential, even with the flag") {
            _ = try await remote.call(
                .getSessionUsage,
                GetSessionUsageRequest(sessionId: gone, network: AccessWorld.amoy, includeRevoked: true),
                as: GetSessionUsageResponse.self)
        }
        let (stranger, _) = try await world.core.signIn(email: "stranger@example.com")
        await expectRefusal(.keyNotFound, "another account") {
            _ = try await stranger.call(
                .getSession, GetSessionRequest(sessionId: gone, includeRevoked: true), as: GetSessionResponse.self)
        }
        await expectRefusal(.walletNotFound, "another account's listing") {
            _ = try await stranger.call(
                .listAccess, ListAccessRequest(walletId: world.wallet.id, includeRevoked: true),
                as: ListAccessResponse.self)
        }
        // A revoked session still cannot spend.
        await expectRefusal(.keyNotFound) { _ = try await world.send(remote, session: gone, value: "1") }
    }

    @Test func theRevokedListingReadsAnIndexInGrantOrder() async throws {
        let world = try await AccessWorld.make(.inProcess)
        defer { world.remove() }
        let account = try await world.core.service.store.read { db in
            try db.rows("SELECT account_id FROM wallets WHERE id = ?", [.text(world.wallet.id)]).first?[0].text ?? ""
        }
        let plan = try await world.core.service.store.read { db in
            try db.queryPlan(
                AccessSQL.pageWithRevoked, [.text(account), .integer(0), .text(world.wallet.id), .null, .integer(101)])
        }
        print("AccessRevokedListingTests: plan \(plan)")
        #expect(plan.contains { $0.contains("access_grants_by_account") })
        #expect(!plan.contains { $0.contains("TEMP B-TREE") })
    }
}
