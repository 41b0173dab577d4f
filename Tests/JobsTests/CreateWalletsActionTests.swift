import Foundation
import OMSCore
import OMSProtocol
import Synchronization
import Testing
import WalletCrypto

@testable import Jobs

/// The batched create job against an embedded core: streamed references, order, bounded batches in
/// flight, a lost reply sent again.
@Suite struct CreateWalletsActionTests {
    /// Counts requests in flight and can drop the reply of chosen CreateWallets requests (after the core
    /// applied them), as a broken connection would.
    final class WatchingTransport: WaasTransport {
        let inner: any WaasTransport
        private let state = Mutex((inFlight: 0, most: 0, batches: 0))
        private let dropReplies: Set<Int>

        init(_ inner: any WaasTransport, dropReplies: Set<Int> = []) {
            self.inner = inner
            self.dropReplies = dropReplies
        }

        var mostInFlight: Int { state.withLock { $0.most } }
        var batches: Int { state.withLock { $0.batches } }

        func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse {
            let number = state.withLock { state -> Int in
                state.inFlight += 1
                state.most = max(state.most, state.inFlight)
                if request.path == WaasMethod.createWallets.path { state.batches += 1 }
                return state.batches
            }
            defer { state.withLock { $0.inFlight -= 1 } }
            let response = try await inner.send(request)
            if request.path == WaasMethod.createWallets.path, dropReplies.contains(number) {
                throw TransportError(mayHaveBeenDelivered: true, message: "reply lost (test)")
            }
            return response
        }
    }

    /// A signed-in client on a fresh embedded core, through `wrap`.
    static func withCore<T>(
        wrap: (any WaasTransport) -> any WaasTransport = { $0 }, _ body: (WaasClient, URL) async throws -> T
    ) async throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-create-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let home = CoreHome(url: url)
        let project = try WaasService.initialize(home: home, project: "test").project
        let service = try WaasService.open(home: home)
        let client = WaasClient(
            transport: wrap(InProcessTransport(handler: service)),
            publishableKey: try PublishableKey(project.publishableKey),
            signer: P256RequestSigner(key: try P256.Signing.PrivateKey()))
        let dev = try await service.devIssuer()!
        let token = try dev.idToken(email: "ops@example.com", now: service.now)
        let commit = try await client.call(
            .commitVerifier,
            CommitVerifierRequest(
                identityType: .oidc, authMode: .idToken,
                metadata: ["iss": dev.issuer, "aud": DevIssuer.audience, "exp": String(service.now + 600)],
                handle: Base64URL.encode(SHA256.hash(data: Array(token.utf8)))), as: CommitVerifierResponse.self)
        _ = try await client.call(
            .completeAuth,
            CompleteAuthRequest(identityType: .oidc, authMode: .idToken, verifier: commit.verifier, answer: token),
            as: CompleteAuthResponse.self)
        return try await body(client, url)
    }

    static func rows(_ path: String) throws -> [[String]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\r\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    @Test func csvReferencesStreamInOrderWithRepeatsAndBlanks() async throws {
        try await Self.withCore { client, folder in
            let input = folder.appendingPathComponent("refs.csv").path
            try Data("note,reference\nx,b\ny,\nz,a\nw,b\nv,c\n".utf8).write(to: URL(fileURLWithPath: input))
            let output = folder.appendingPathComponent("out/w.csv").path
            var reports: [Int] = []
            let totals = try await CreateWalletsAction.createAll(
                .init(source: .csv(path: input), type: .solana, output: output, concurrency: 2, batchSize: 2),
                client: client
            ) { reports.append($0) }
            // Batches [b, a] and [b, c]: b exists when the second batch comes.
            #expect(totals == CreateWalletsAction.Totals(created: 3, existing: 1, rows: 4))
            #expect(reports == [2, 4], "progress after each batch written: the rows so far")
            let rows = try Self.rows(output)
            #expect(rows.first == CreateWalletsAction.header)
            #expect(rows.dropFirst().map { $0[0] } == ["b", "a", "b", "c"])
            #expect(rows[1][1] == rows[3][1], "a repeated reference repeats its wallet's row")
            #expect(rows.dropFirst().allSatisfy { $0[2] == "solana" && $0[4] == "enclave" })
            #expect(!FileManager.default.fileExists(atPath: output + ".partial"))

            let missing = folder.appendingPathComponent("bad.csv").path
            try Data("name\nb\n".utf8).write(to: URL(fileURLWithPath: missing))
            await #expect(throws: (any Error).self) {
                try await CreateWalletsAction.createAll(
                    .init(source: .csv(path: missing), type: .ethereum, output: output), client: client)
            }
        }
    }

    @Test func fieldsAreQuotedByteByByteAsRFC4180Asks() {
        var cases = 0
        for (value, expected) in [
            ("plain", "plain"), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("l1\r\nl2", "\"l1\r\nl2\""),
            ("l1\nl2", "\"l1\nl2\""), ("é😀", "é😀"), ("", ""),
        ] {
            var out: [UInt8] = []
            CSVFile.appendField(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == expected)
            cases += 1
        }
        #expect(cases == 7)
    }

    @Test func batchesInFlightStayBoundedAndRowsStayInOrder() async throws {
        let watching = Mutex<WatchingTransport?>(nil)
        try await Self.withCore(wrap: { inner in
            let transport = WatchingTransport(inner)
            watching.withLock { $0 = transport }
            return transport
        }) { client, folder in
            let output = folder.appendingPathComponent("w.csv").path
            let totals = try await CreateWalletsAction.createAll(
                .init(
                    source: .numbered(prefix: "n", count: 2_000), type: .ethereum, output: output, concurrency: 3,
                    batchSize: 100), client: client)
            #expect(totals == CreateWalletsAction.Totals(created: 2_000, existing: 0, rows: 2_000))
            let transport = try #require(watching.withLock { $0 })
            #expect(transport.batches >= 20, "20 batches, and any sent again for a stale nonce")
            #expect(transport.mostInFlight <= 3, "at most `concurrency` batches in flight")
            let rows = try Self.rows(output).dropFirst()
            #expect(rows.map { $0[0] } == (1...2_000).map { "n-\($0)" })
            #expect(Set(rows.map { $0[1] }).count == 2_000)
        }
    }

    @Test func aBatchWhoseReplyWasLostIsSentAgainAndMadeOnce() async throws {
        try await Self.withCore(wrap: { WatchingTransport($0, dropReplies: [2]) }) { client, folder in
            let output = folder.appendingPathComponent("w.csv").path
            let totals = try await CreateWalletsAction.createAll(
                .init(
                    source: .numbered(prefix: "l", count: 30), type: .ethereum, output: output, concurrency: 1,
                    batchSize: 10), client: client)
            // The second batch was made, its reply lost, sent again and answered `created: false`.
            #expect(totals == CreateWalletsAction.Totals(created: 20, existing: 10, rows: 30))
            let rows = try Self.rows(output).dropFirst()
            #expect(rows.map { $0[0] } == (1...30).map { "l-\($0)" })
            let all = try await CoreConnection.allWallets(client)
            #expect(all.count == 30 && Set(all.compactMap(\.reference)).count == 30)
        }
    }
}
