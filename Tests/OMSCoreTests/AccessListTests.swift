import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// ListAccess and RevokeAccess: what a wallet's owner sees and can take back.
@Suite struct AccessListTests {
    @Test(arguments: AccessTransport.allCases)
    func listsDirectCredentialsAndRemoteSessionsWithTheCaller(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let (second, secondAuth) = try await world.core.signIn(email: "owner@example.com")
        let remote = try await world.remote(name: "Payroll")
        let session = try await world.authorize(remote)

        let all = try await world.listAll()
        #expect(
            all.map(\.credentialId) == [world.ownerId, secondAuth.credential.credentialId, remote.signer!.credentialId])
        #expect(all.map(\.type) == [.direct, .direct, .remote])
        #expect(all.map(\.isCaller) == [true, false, false])
        #expect(all[2].sessionId == session.sessionId)
        #expect(all[2].metadata?.appName == "Payroll")
        #expect(all[2].grants == [.nativeTransfer(to: AccessWorld.receiver, limit: "1000")])
        #expect(all[2].expiresAt == session.expiry)
        #expect(all[0].sessionId == nil && all[0].grants == nil && all[0].metadata == nil)

        // isCaller follows the credential making the request.
        let fromSecond = try await world.listAll(second)
        #expect(fromSecond.map(\.isCaller) == [false, true, false])
        // The type filter.
        #expect(try await world.listAll(type: .direct).count == 2)
        #expect(try await world.listAll(type: .remote).map(\.sessionId) == [session.sessionId])

        // Another account sees nothing of this wallet.
        let (stranger, _) = try await world.core.signIn(email: "stranger@example.com")
        await expectRefusal(.walletNotFound) { _ = try await world.listAll(stranger) }
        // A remote credential cannot list access.
        await expectRefusal(.unauthorized) { _ = try await world.listAll(remote) }
    }

    @Test(arguments: AccessTransport.allCases)
    func pageSizesAndCursorsAreChecked(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        for _ in 0..<3 { _ = try await world.core.signIn(email: "owner@example.com") }
        let pages = try await world.listAll(limit: 1)
        #expect(pages.count == 4)
        let first = try await world.owner.call(
            .listAccess, ListAccessRequest(walletId: world.wallet.id), as: ListAccessResponse.self)
        #expect(first.credentials.count == 4 && first.page == nil)
        for limit in [0, -1, 101] {
            await expectRefusal(.invalidRequest, "limit \(limit)") {
                _ = try await world.listAll(limit: limit)
            }
        }
        #expect(try await world.listAll(limit: 100).count == 4)
        for cursor in ["garbage", Base64URL.encode(Array("w:1".utf8)), Base64URL.encode(Array("a:-4".utf8))] {
            await expectRefusal(.invalidRequest, "cursor \(cursor)") {
                _ = try await world.owner.call(
                    .listAccess, ListAccessRequest(walletId: world.wallet.id, page: Page(cursor: cursor)),
                    as: ListAccessResponse.self)
            }
        }
        await expectRefusal(.invalidRequest) {
            _ = try await world.owner.call(
                .listAccess, ListAccessRequest(walletId: world.wallet.id, type: .unknown("robot")),
                as: ListAccessResponse.self)
        }
    }

    @Test(arguments: AccessTransport.allCases)
    func expiredGrantsAreListedUntilRevokedAndRevokedOnesNever(_ transport: AccessTransport) async throws {
        let clock = ManualClock()
        let world = try await AccessWorld.make(transport, clock: clock)
        defer { world.remove() }
        let remote = try await world.remote()
        let short = try await world.authorize(remote, seconds: 60)
        let long = try await world.authorize(remote, seconds: 7200)
        clock.advance(by: 600)
        let listed = try await world.listAll(type: .remote)
        #expect(listed.map(\.sessionId) == [short.sessionId, long.sessionId])
        let expiry = try #require(RFC3339.parse(listed[0].expiresAt))
        #expect(expiry < world.now)
        _ = try await world.owner.call(
            .revokeAccess,
            RevokeAccessRequest(
                targetCredentialId: remote.signer!.credentialId, walletId: world.wallet.id, sessionId: short.sessionId),
            as: OKResponse.self)
        #expect(try await world.listAll(type: .remote).map(\.sessionId) == [long.sessionId])
    }

    @Test(arguments: AccessTransport.allCases)
    func revokingADirectCredentialIsPermanentAndIdempotentForTheOwner(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let (second, secondAuth) = try await world.core.signIn(email: "owner@example.com")
        let target = secondAuth.credential.credentialId
        let revoke = RevokeAccessRequest(targetCredentialId: target, walletId: world.wallet.id)
        #expect(try await world.owner.call(.revokeAccess, revoke, as: OKResponse.self).ok)
        await expectRefusal(.unauthorized) { _ = try await world.listAll(second) }
        #expect(try await world.listAll().map(\.credentialId) == [world.ownerId])
        // Already revoked, by the owner: ok (a sweep can resume).
        #expect(try await world.owner.call(.revokeAccess, revoke, as: OKResponse.self).ok)
        // By anyone else: KeyNotFound, revoked or live.
        let (stranger, _) = try await world.core.signIn(email: "stranger@example.com")
        await expectRefusal(.keyNotFound) { _ = try await stranger.call(.revokeAccess, revoke, as: OKResponse.self) }
        let live = RevokeAccessRequest(targetCredentialId: world.ownerId, walletId: world.wallet.id)
        await expectRefusal(.keyNotFound) { _ = try await stranger.call(.revokeAccess, live, as: OKResponse.self) }
        // Unknown targets.
        await expectRefusal(.keyNotFound) {
            _ = try await world.owner.call(
                .revokeAccess, RevokeAccessRequest(targetCredentialId: "0x04ab", walletId: world.wallet.id),
                as: OKResponse.self)
        }
        // Permanent: the revoked key cannot sign in again.
        await expectRefusal(.unauthorized) {
            _ = try await CoreFixture.signIn(second, service: world.core.service, email: "owner@example.com")
        }
    }

    @Test(arguments: AccessTransport.allCases)
    func revokingTheCallersOwnCredentialEndsItsSession(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let ok = try await world.owner.call(
            .revokeAccess, RevokeAccessRequest(targetCredentialId: world.ownerId, walletId: world.wallet.id),
            as: OKResponse.self)
        #expect(ok.ok)
        await expectRefusal(.unauthorized) { _ = try await world.listAll() }
        await expectRefusal(.unauthorized) {
            _ = try await world.owner.call(.listWallets, ListWalletsRequest(), as: ListWalletsResponse.self)
        }
    }

    @Test(arguments: AccessTransport.allCases)
    func aRemoteGrantIsRevokedOnlyByItsSessionId(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let other = try await world.remote()
        let first = try await world.authorize(remote)
        let second = try await world.authorize(remote)
        let foreign = try await world.authorize(other)
        let id = remote.signer!.credentialId
        await expectRefusal(.invalidRequest, "no sessionId") {
            _ = try await world.owner.call(
                .revokeAccess, RevokeAccessRequest(targetCredentialId: id, walletId: world.wallet.id),
                as: OKResponse.self)
        }
        await expectRefusal(.keyNotFound, "session of another credential") {
            _ = try await world.owner.call(
                .revokeAccess,
                RevokeAccessRequest(targetCredentialId: id, walletId: world.wallet.id, sessionId: foreign.sessionId),
                as: OKResponse.self)
        }
        await expectRefusal(.keyNotFound, "unknown session") {
            _ = try await world.owner.call(
                .revokeAccess,
                RevokeAccessRequest(targetCredentialId: id, walletId: world.wallet.id, sessionId: "ses_nothing"),
                as: OKResponse.self)
        }
        // The checksum case of the id does not matter.
        let revoke = RevokeAccessRequest(
            targetCredentialId: id.lowercased(), walletId: world.wallet.id, sessionId: first.sessionId)
        #expect(try await world.owner.call(.revokeAccess, revoke, as: OKResponse.self).ok)
        #expect(try await world.listAll(type: .remote).map(\.sessionId) == [second.sessionId, foreign.sessionId])
        // Exactly that session: the other one still spends.
        _ = try await world.send(remote, session: second.sessionId, value: "5")
        await expectRefusal(.keyNotFound) { _ = try await world.send(remote, session: first.sessionId, value: "5") }
        #expect(try await world.owner.call(.revokeAccess, revoke, as: OKResponse.self).ok)
        let (stranger, _) = try await world.core.signIn(email: "stranger@example.com")
        await expectRefusal(.keyNotFound) { _ = try await stranger.call(.revokeAccess, revoke, as: OKResponse.self) }
        // Re-authorizing a revoked session is refused: revocation cannot be undone.
        await expectRefusal(.keyNotFound) { try await world.authorize(remote, sessionId: first.sessionId) }
    }
}
