import Foundation
import OMSProtocol
import Testing
import WalletCrypto

@testable import OMSCore

/// ListAccess pages: every grant exactly once, in a stable order, while grants come and go; and the
/// page query reads an index, whatever the number of grants.
@Suite struct AccessPaginationTests {
    @Test(arguments: AccessTransport.allCases)
    func everyGrantAppearsOnceWhileGrantsAreAddedAndRevokedBetweenPages(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        // Over HTTP, 200 grants (six pages of 37 instead of 28): the paging rule is the same, and the
        // 1,000 in-process grants already cover the length; the wire adds only the request cost.
        let grants = transport == .inProcess ? 1000 : 200
        let remote = try await world.remote()
        let started = ContinuousClock.now
        var created: [String] = []  // session ids in the order granted
        for _ in 0..<grants { created.append(try await world.authorize(remote).sessionId) }
        print("AccessPaginationTests[\(transport)]: authorized \(grants) sessions in \(ContinuousClock.now - started)")

        let stable = try await world.listAll(limit: 100)
        #expect(stable.count == grants + 1)
        let stableIds = stable.compactMap(\.sessionId)
        let inGrantOrder = stableIds == created
        #expect(inGrantOrder, "ListAccess order is the order of granting")

        var seen: [String] = []
        var revokedUnseen: Set<String> = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await world.owner.call(
                .listAccess,
                ListAccessRequest(walletId: world.wallet.id, page: Page(limit: 37, cursor: cursor), type: .remote),
                as: ListAccessResponse.self)
            seen += page.credentials.compactMap(\.sessionId)
            cursor = page.page?.hasMore == true ? page.page?.cursor : nil
            pages += 1
            guard cursor != nil else { break }
            // Between pages: two new grants, one revoked behind the cursor and one ahead of it.
            for _ in 0..<2 { created.append(try await world.authorize(remote).sessionId) }
            let unseen = created.filter { !seen.contains($0) && !revokedUnseen.contains($0) }
            for target in [seen.last, unseen.dropFirst(5).first].compactMap({ $0 }) {
                _ = try await world.owner.call(
                    .revokeAccess,
                    RevokeAccessRequest(
                        targetCredentialId: remote.signer!.credentialId, walletId: world.wallet.id, sessionId: target),
                    as: OKResponse.self)
                if !seen.contains(target) { revokedUnseen.insert(target) }
            }
        } while cursor != nil
        // Compared as booleans: a failure names the first difference instead of printing 1,000 ids.
        let expected = created.filter { !revokedUnseen.contains($0) }
        let firstDifference = zip(seen, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(Set(seen).count == seen.count, "a grant appeared twice")
        #expect(
            seen.count == expected.count && firstDifference == nil,
            "first difference at \(String(describing: firstDifference))")
        #expect(revokedUnseen.isDisjoint(with: seen))
        print(
            "AccessPaginationTests[\(transport)]: \(seen.count) grants over \(pages) pages, \(revokedUnseen.count) revoked ahead of the cursor"
        )
        // Each page takes 37 and the changes between pages add one unseen grant: more than grants / 37.
        #expect(pages > grants / 37)
    }

    @Test(arguments: AccessTransport.allCases)
    func listingTenThousandGrantsReadsIndexesOnly(_ transport: AccessTransport) async throws {
        let world = try await AccessWorld.make(transport)
        defer { world.remove() }
        let remote = try await world.remote()
        let session = try await world.authorize(remote).sessionId
        let project = world.core.project.id
        let ownerId = world.ownerId
        let walletId = world.wallet.id
        let remoteId = remote.signer!.credentialId
        // Seed 10,000 grants (a third on another wallet) and 1,000 ledger transfers in one transaction.
        let other = try await world.owner.call(
            .createWallet, CreateWalletRequest(networkFamily: .evm), as: WalletResponse.self
        ).wallet.id
        let account = try await world.core.service.store.write { db in
            let account = try #require(try db.credential(ownerId, project: project)?.accountId)
            for i in 0..<9_999 {
                _ = try db.insertSession(
                    SessionRecord(
                        seq: 0, id: "ses_seed\(i)", accountId: account, credentialId: remoteId,
                        walletId: i % 3 == 0 ? other : walletId, chainId: 80_002,
                        grants: [.nativeTransfer(to: AccessWorld.receiver, limit: "1000")], expiresAt: Int64.max / 2,
                        revokedAt: nil), now: 0)
            }
            for i in 0..<1_000 {
                try db.insertTransfer(
                    TransferRecord(
                        id: "txn_seed\(i)", walletId: walletId, sessionId: session, credentialId: remoteId,
                        chainId: 80_002,
                        token: nil, to: AccessWorld.receiver, amount: 1, status: "prepared", expiresAt: 0),
                    project: project, now: 0)
            }
            return account
        }
        let started = ContinuousClock.now
        let all = try await world.listAll(limit: 100)
        let elapsed = ContinuousClock.now - started
        #expect(all.count == 1 + 1 + 6_666)
        print(
            "AccessPaginationTests[\(transport)]: listed \(all.count) grants in \(all.count / 100 + 1) pages in \(elapsed)"
        )

        // The page queries alone, without signing and commits: what the index buys.
        let queryTime = try await world.core.service.store.read { db in
            let started = ContinuousClock.now
            var after: Int64 = 0
            var rows = 0
            while true {
                let (page, more) = try db.accessPage(
                    account: account, wallet: walletId, type: nil, afterSeq: after, limit: 100)
                rows += page.count
                guard more, let last = page.last else { break }
                after = last.seq
            }
            return (rows, ContinuousClock.now - started)
        }
        #expect(queryTime.0 == all.count)
        print("AccessPaginationTests[\(transport)]: the page queries alone took \(queryTime.1)")

        let plans = try await world.core.service.store.read { db in
            (
                try db.queryPlan(
                    AccessSQL.page, [.text(account), .integer(0), .text(walletId), .null, .integer(101)]),
                try db.queryPlan(
                    "SELECT grant_key, used FROM session_usage WHERE session_id = ? AND chain_id = ?",
                    [.text(session), .integer(80_002)])
            )
        }
        print("AccessPaginationTests: plan \(plans.0)")
        #expect(plans.0.contains { $0.contains("access_grants_live") })
        #expect(
            plans.0.contains { $0.contains("credentials") && $0.contains("PRIMARY KEY") || $0.contains("autoindex") })
        #expect(!plans.0.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") })
        #expect(plans.1.allSatisfy { !$0.hasPrefix("SCAN") })
    }
}
