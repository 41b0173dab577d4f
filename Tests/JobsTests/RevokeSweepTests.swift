import Foundation
import OMSProtocol
import Playbook
import Runner
import Synchronization
import Testing

@testable import Jobs

/// The revoke sweep as two steps through the engine: the selection, then one row per grant, with a lost
/// reply settled by the probe that tells a revoked grant from one still listed.
@Suite struct RevokeSweepTests {
    /// Drops the reply of the first RevokeAccess request after the core applied it, and counts the
    /// RevokeAccess requests the core took up: not those it refused for a stale nonce (the three revokes
    /// run at once under one credential), which changed nothing and which the client signs again.
    final class LosingTransport: WaasTransport {
        let inner: any WaasTransport
        private let revokes = Atomic<Int>(0)
        init(_ inner: any WaasTransport) { self.inner = inner }
        var revokeRequests: Int { revokes.load(ordering: .relaxed) }

        func send(_ request: WaasHTTPRequest) async throws -> WaasHTTPResponse {
            let response = try await inner.send(request)
            guard request.path == WaasMethod.revokeAccess.path else { return response }
            let stale = WaasError(wireBody: response.body, httpStatus: response.status)?.code == .preconditionFailed
            if !stale && revokes.add(1, ordering: .relaxed).newValue == 1 {
                throw TransportError(mayHaveBeenDelivered: true, message: "reply lost (test)")
            }
            return response
        }
    }

    static func plan(select: RevokeSelectAction, grants: RevokeGrantsAction) -> RunPlan {
        RunPlan(
            name: "sweep",
            steps: [
                StepPlan(id: "select", action: select, retry: .none),
                StepPlan(
                    id: "sweep", needs: ["select"],
                    items: .values(afterSteps: { outputs in
                        guard case .list(let list) = TemplateValue(output: outputs[step: "select"]?["grants"] ?? "")
                        else { return [] }
                        return list
                    }), action: grants, concurrency: 4,
                    retry: RetryPolicy(
                        maxAttempts: 3, initialBackoff: .milliseconds(1), retryOn: [.retryable, .inDoubt]),
                    failureBudget: .count(100)),
            ], concurrency: 8)
    }

    @Test func applyRevokesEveryOtherCredentialOnceAndTheProbeTellsRevokedFromListed() async throws {
        let losing = Mutex<LosingTransport?>(nil)
        try await CreateWalletsActionTests.withCoreService(wrap: { inner in
            let transport = LosingTransport(inner)
            losing.withLock { $0 = transport }
            return transport
        }) { client, folder, signInAgain in
            _ = try await client.createWallets(networkFamily: .evm, references: ["a", "b"])
            let others = [try await signInAgain(), try await signInAgain(), try await signInAgain()]
            #expect(others.count == 3)
            let output = folder.appendingPathComponent("sweep.csv").path
            let select = RevokeSelectAction(.init(mode: .apply, selection: .nonCaller, output: output)) { client }
            let grants = RevokeGrantsAction(mode: .apply, output: output) { client }
            let store = try RunStore(path: folder.appendingPathComponent("runs.sqlite").path)
            let summary = try await Engine.run(
                plan: Self.plan(select: select, grants: grants), store: store,
                identity: RunIdentity(playbookName: "sweep", playbookHash: "h"))
            #expect(summary.status == .completed, "\(summary.reason ?? "")")
            let rows = try CreateWalletsActionTests.rows(output)
            #expect(rows.first == RevokeGrantsAction.header)
            // A direct credential is account-wide: each is listed once, on the first wallet.
            let results = rows.dropFirst().map { $0[7] }
            #expect(results.sorted() == ["revoked", "revoked", "revoked", "skipped-caller"], "\(rows)")
            // The grant whose reply was lost was probed (no longer listed: revoked), not sent again.
            #expect(losing.withLock { $0!.revokeRequests } == 3)
            let wallets = try await CoreConnection.allWallets(client)
            let left = try await ConcurrentReads.allAccess(client: client, walletId: wallets[0].id, type: nil)
            #expect(left.count == 1 && left[0].isCaller)

            // The probe: a revoked grant is done, the caller's (still listed) is not.
            let items = rows.dropFirst().map { row in
                WorkItem(
                    key: row[1],
                    fields: [
                        "wallet_id": row[0], "credential_id": row[1], "session_id": row[2], "type": row[3],
                        "caller": "false",
                    ])
            }
            let context = ChunkContext(runID: 1, stepID: "sweep", stepIndex: 1, attempt: 1, clock: SystemClock())
            let answers = try await grants.probe(chunk: items, context: context)
            for (row, answer) in zip(rows.dropFirst(), answers) {
                if row[7] == "revoked" {
                    #expect(answer == .done(ActionResult(outputs: ["result": "revoked"])))
                } else {
                    #expect(answer == .notDone)
                }
            }
        }
    }

    @Test func aSelectionOverTheLimitRevokesNothingAndWritesThePlan() async throws {
        try await CreateWalletsActionTests.withCoreService { client, folder, signInAgain in
            _ = try await client.createWallets(networkFamily: .evm, references: ["a"])
            _ = try await signInAgain()
            _ = try await signInAgain()
            let output = folder.appendingPathComponent("sweep.csv").path
            let select = RevokeSelectAction(
                .init(mode: .apply, selection: .nonCaller, maxRevocations: 1, output: output)
            ) { client }
            let grants = RevokeGrantsAction(mode: .apply, output: output) { client }
            let summary = try await Engine(plan: Self.plan(select: select, grants: grants), checkpoint: nil).run()
            #expect(summary.exitCode != 0)
            #expect(summary.steps.map(\.status) == [.failed, .skipped])
            let rows = try CreateWalletsActionTests.rows(output)
            #expect(rows.dropFirst().map { $0[7] }.sorted() == ["planned", "planned", "skipped-caller"])
            let wallets = try await CoreConnection.allWallets(client)
            #expect(try await ConcurrentReads.allAccess(client: client, walletId: wallets[0].id, type: nil).count == 3)
        }
    }
}
