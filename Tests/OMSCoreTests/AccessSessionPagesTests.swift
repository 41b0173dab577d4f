import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// ListSessions `includeRevoked` and `includeDetails` (walletops extensions, docs/protocol.md "The
/// account's sessions in pages"): the owner's whole account, revoked sessions too, each with its app and
/// wallet, page by page.
@Suite struct AccessSessionPagesTests {
    static func listAll(_ client: WaasClient, limit: Int, includeRevoked: Bool?, includeDetails: Bool?)
        async throws -> (sessions: [RemoteSession], pages: Int)
    {
        var all: [RemoteSession] = []
        var page: Page? = Page(limit: limit)
        var pages = 0
        repeat {
            let response = try await client.call(
                .listSessions,
                ListSessionsRequest(page: page, includeRevoked: includeRevoked, includeDetails: includeDetails),
                as: ListSessionsResponse.self)
            all += response.sessions
            pages += 1
            page = response.page.flatMap { $0.hasMore ? Page(limit: $0.limit, cursor: $0.cursor) : nil }
        } while page != nil
        return (all, pages)
    }

    @Test(arguments: AccessTransport.allCases)
    func theOwnerListsEverySessionOnceWithAppAndWallet(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let treasury = try await world.owner.call(
            .createWallet, CreateWalletRequest(networkFamily: .evm, reference: "treasury"), as: WalletResponse.self
        ).wallet
        let payroll = try await world.remote(name: "Payroll Bot")
        let game = try await world.remote(name: "Game Server")
        var ids: [String] = []
        for index in 0..<5 {
            ids.append(
                try await world.authorize(
                    index % 2 == 0 ? payroll : game, walletId: index < 3 ? treasury.id : world.wallet.id
                ).sessionId)
        }
        _ = try await world.owner.call(
            .revokeAccess,
            RevokeAccessRequest(
                targetCredentialId: game.signer!.credentialId, walletId: treasury.id, sessionId: ids[1]),
            as: OKResponse.self)

        let detailed = try await Self.listAll(world.owner, limit: 2, includeRevoked: true, includeDetails: true)
        #expect(detailed.sessions.map(\.sessionId) == ids, "every session once, in grant order")
        #expect(detailed.pages == 3)
        #expect(detailed.sessions.map { $0.revokedAt != nil } == [false, true, false, false, false])
        #expect(
            detailed.sessions.map { $0.metadata?.appName } == [
                "Payroll Bot", "Game Server", "Payroll Bot", "Game Server", "Payroll Bot",
            ])
        #expect(detailed.sessions.map(\.walletReference) == ["treasury", "treasury", "treasury", nil, nil])
        #expect(
            detailed.sessions.map(\.walletAddress) == [String](repeating: treasury.address, count: 3) + [
                world.wallet.address, world.wallet.address,
            ])

        // Live only, with details; revoked without details; neither: the OMS reply.
        let live = try await Self.listAll(world.owner, limit: 100, includeRevoked: nil, includeDetails: true)
        #expect(live.sessions.map(\.sessionId) == ids.enumerated().filter { $0.offset != 1 }.map(\.element))
        let bare = try await Self.listAll(world.owner, limit: 100, includeRevoked: true, includeDetails: nil)
        #expect(bare.sessions.count == 5 && bare.sessions.allSatisfy { $0.metadata == nil && $0.walletAddress == nil })
        let oms = try await Self.listAll(world.owner, limit: 100, includeRevoked: nil, includeDetails: nil)
        #expect(oms.sessions.count == 4 && oms.sessions.allSatisfy { $0.metadata == nil && $0.revokedAt == nil })
        let encoded = String(
            decoding: try WaasClient.encodeBody(ListSessionsResponse(sessions: oms.sessions)), as: UTF8.self)
        #expect(!encoded.contains("walletAddress") && !encoded.contains("metadata"))

        // A remote credential sees its own live sessions only, flags or not.
        let own = try await Self.listAll(game, limit: 100, includeRevoked: true, includeDetails: true)
        #expect(own.sessions.map(\.sessionId) == [ids[3]])
        #expect(own.sessions.allSatisfy { $0.walletAddress == nil && $0.revokedAt == nil })
    }
}
