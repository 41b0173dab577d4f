import Foundation
import OMSProtocol
import Runner

/// `jobs.usage-sessions`: the first step of the usage report. Lists every remote session of the
/// identity's wallets, revoked ones included (the owner's `includeRevoked` reads of ListAccess,
/// docs/protocol.md); its output `sessions` is one object per session in wallet and grant order, which
/// the `jobs.session-usage` step iterates. A read only: running it again lists again.
public struct UsageSessionsAction: Action {
    /// ListAccess requests in flight at once (one per wallet).
    public let concurrency: Int
    /// The signed-in client, opened on first use.
    let client: @Sendable () throws -> WaasClient

    /// An action listing with `concurrency` requests in flight through `client()`.
    public init(concurrency: Int = 8, client: @escaping @Sendable () throws -> WaasClient) {
        self.concurrency = max(1, concurrency)
        self.client = client
    }

    public var name: String { "jobs.usage-sessions" }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        do {
            let client = try client()
            let wallets = try await CoreConnection.allWallets(client)
            let listed = try await ConcurrentReads.map(wallets, limit: concurrency) { wallet in
                try await ConcurrentReads.allAccess(
                    client: client, walletId: wallet.id, type: .remote, includeRevoked: true)
            }
            var sessions: [[String: String]] = []
            for (wallet, credentials) in zip(wallets, listed) {
                for credential in credentials {
                    guard let sessionId = credential.sessionId else { continue }
                    sessions.append([
                        "wallet_id": wallet.id, "wallet_address": wallet.address,
                        "credential_id": credential.credentialId, "session_id": sessionId,
                        "app_name": credential.metadata?.appName ?? "", "app_url": credential.metadata?.appUrl ?? "",
                        "revoked": credential.revokedAt != nil ? "true" : "false",
                    ])
                }
            }
            return ActionResult(outputs: [
                "sessions": try OutputJSON.text(sessions), "count": String(sessions.count),
            ])
        } catch {
            throw JobFailure.classify(error)
        }
    }
}
