import Foundation
import HomeLayout
import OMSCore
import OMSProtocol
import Runner
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
        try await withCoreService(wrap: wrap) { client, folder, _ in try await body(client, folder) }
    }

    /// ``withCore(wrap:_:)`` that also hands `body` a way to sign the same identity in again with a new
    /// credential (a second direct grant on every wallet).
    static func withCoreService<T>(
        wrap: (any WaasTransport) -> any WaasTransport = { $0 },
        _ body: (WaasClient, URL, @Sendable () async throws -> WaasClient) async throws -> T
    ) async throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-create-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let home = WalletHome(url: url)
        let project = try WaasService.initialize(home: home, project: "test").project
        let service = try WaasService.open(home: home)
        let publishableKey = try PublishableKey(project.publishableKey)
        let client = try await signIn(
            WaasClient(
                transport: wrap(InProcessTransport(handler: service)), publishableKey: publishableKey,
                signer: P256RequestSigner(key: try P256.Signing.PrivateKey())), service: service)
        return try await body(client, url) {
            try await signIn(
                WaasClient(
                    transport: InProcessTransport(handler: service), publishableKey: publishableKey,
                    signer: P256RequestSigner(key: try P256.Signing.PrivateKey())), service: service)
        }
    }

    /// `client` signed in as ops@example.com through the core's development issuer.
    static func signIn(_ client: WaasClient, service: WaasService) async throws -> WaasClient {
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
        return client
    }

    static func rows(_ path: String) throws -> [[String]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\r\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// Runs `items` through the action in the engine, checkpointed in a run store in `folder`.
    static func runCreate(
        _ items: [WorkItem], type: WalletType = .ethereum, output: String, client: WaasClient, folder: URL,
        concurrency: Int, batch: Int
    ) async throws -> RunSummary {
        let action = CreateWalletsAction(.init(type: type, output: output, referencePrefix: "n")) { client }
        let store = try RunStore(path: folder.appendingPathComponent("runs.sqlite").path)
        let plan = RunPlan(
            name: "create",
            steps: [
                StepPlan(
                    id: "create", items: .items(items), action: action, concurrency: concurrency,
                    retry: RetryPolicy(
                        maxAttempts: 3, initialBackoff: .milliseconds(1), retryOn: [.retryable, .inDoubt]),
                    failureBudget: .count(100), batch: batch)
            ], concurrency: 64)
        return try await Engine.run(
            plan: plan, store: store, identity: RunIdentity(playbookName: "create", playbookHash: "h"))
    }

    static func numbered(_ count: Int) -> [WorkItem] {
        (1...count).map { WorkItem(key: "index:\($0)", fields: ["index": "\($0)"]) }
    }

    @Test func referencesInOrderWithRepeatsAndBlanks() async throws {
        try await Self.withCore { client, folder in
            let output = folder.appendingPathComponent("out/w.csv").path
            let items = ["b", "", "a", "b", "c"].enumerated().map {
                WorkItem(key: "row:\($0 + 1)", fields: ["note": "x", "reference": $1])
            }
            let summary = try await Self.runCreate(
                items, type: .solana, output: output, client: client, folder: folder, concurrency: 2, batch: 2)
            // A blank reference is reported, not skipped in silence.
            #expect(summary.succeeded == 4)
            #expect(summary.rejected == 1)
            let rows = try Self.rows(output)
            #expect(rows.first == CreateWalletsAction.header)
            #expect(rows.dropFirst().map { $0[0] } == ["b", "a", "b", "c"])
            #expect(rows[1][1] == rows[3][1], "a repeated reference repeats its wallet's row")
            #expect(rows.dropFirst().allSatisfy { $0[2] == "solana" && $0[4] == "enclave" })
            #expect(try await CoreConnection.allWallets(client).count == 3)
        }
    }

    @Test func batchesInFlightStayBoundedAndRowsStayInOrder() async throws {
        let watching = Mutex<WatchingTransport?>(nil)
        try await Self.withCore(wrap: { inner in
            let transport = WatchingTransport(inner)
            watching.withLock { $0 = transport }
            return transport
        }) { client, folder in
            let output = folder.appendingPathComponent("w.csv").path
            let summary = try await Self.runCreate(
                Self.numbered(2_000), output: output, client: client, folder: folder, concurrency: 3, batch: 100)
            #expect(summary.succeeded == 2_000)
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
            let summary = try await Self.runCreate(
                Self.numbered(30), output: output, client: client, folder: folder, concurrency: 1, batch: 10)
            // The second chunk was made, its reply lost, sent again by the engine and answered `created: false`.
            #expect(summary.succeeded == 30)
            let rows = try Self.rows(output).dropFirst()
            #expect(rows.map { $0[0] } == (1...30).map { "n-\($0)" })
            let all = try await CoreConnection.allWallets(client)
            #expect(all.count == 30 && Set(all.compactMap(\.reference)).count == 30)
        }
    }
}
