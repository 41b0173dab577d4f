import Foundation
import KeyFormats
import OMSProtocol
import SQLiteKit
import Testing
import WalletCrypto

@testable import Jobs
@testable import OMSCore

/// The batched transport fetches each request's recipient key while the request before it is sealed and
/// imported, on a real embedded core: every request uses a key of its own, one key is left over at most,
/// and a key that went stale while it waited is replaced without losing the batch.
@Suite struct ImportRecipientKeysAheadTests {
    static func items(_ range: Range<Int>) throws -> [ImportRequestItem] {
        try range.map { n in
            let secret = try KeyParser.validate(
                SecretBytes(Array(String(format: "%064x", n * 7919 + 13).utf8)), type: .ethereum, encoding: .text)
            return ImportRequestItem(secret: secret, reference: "ahead-\(n)")
        }
    }

    /// (used, unused) recipient keys in the core.
    static func keys(_ service: WaasService) async throws -> (used: Int, unused: Int) {
        try await service.store.read { db in
            let rows = try db.rows("SELECT consumed_at IS NOT NULL FROM recipient_keys")
            let used = rows.filter { $0[0].int == 1 }.count
            return (used, rows.count - used)
        }
    }

    @Test func eachRequestUsesAKeyFetchedAheadAndAStaleOneIsReplaced() async throws {
        let (issuer, _) = try SubjectSignInTests.ecIssuer()
        let world = try await SubjectSignInTests.World(trusting: [issuer])
        defer { world.remove() }
        let signIn = SubjectSignIn(issuer: issuer, connection: world.connection, publishableKey: world.publishableKey)
        let client = try await signIn.client(for: "ahead")
        let rootPEM = try String(contentsOf: world.home.attestationRootURL, encoding: .utf8)
        let verifier = AttestationVerifier(policy: try AttestationPolicy.development(rootPEM: rootPEM))
        let service = try #require(world.connection.service)
        let transport = ImportTransport.batched(client: client, verifier: verifier)

        // The first request fetches its own key and none ahead (a run of one request asks for one key).
        let first = try await transport.send(try Self.items(0..<5))
        #expect(first.allSatisfy { if case .imported = $0 { true } else { false } })
        let afterFirst = try await Self.keys(service)
        #expect(afterFirst.used == 1 && afterFirst.unused == 0)

        // From the second on, each takes the key fetched at the call before (or its own) and starts the next.
        for round in 1...3 {
            let replies = try await transport.send(try Self.items((round * 5)..<(round * 5 + 5)))
            #expect(replies.allSatisfy { if case .imported = $0 { true } else { false } }, "round \(round)")
        }
        // Fetched ahead by the last call; give it time to land.
        var keys = try await Self.keys(service)
        for _ in 0..<500 where keys.unused == 0 {
            try await Task.sleep(for: .milliseconds(10))
            keys = try await Self.keys(service)
        }
        #expect(keys.used == 4 && keys.unused == 1, "four requests, four keys used, one fetched ahead: \(keys)")

        // The key waiting for the next request is used up behind the transport's back (as a run paused
        // past its lifetime would find it): the request is refused for it and sent again with a fresh key.
        try await service.store.write { db in
            try db.execute("UPDATE recipient_keys SET consumed_at = 1 WHERE consumed_at IS NULL")
        }
        let replies = try await transport.send(try Self.items(20..<25))
        #expect(replies.allSatisfy { if case .imported = $0 { true } else { false } })
        let wallets = try await CoreConnection.allWallets(client)
        #expect(wallets.count == 25)
        #expect(Set(wallets.compactMap(\.reference)) == Set((0..<25).map { "ahead-\($0)" }))
    }
}
