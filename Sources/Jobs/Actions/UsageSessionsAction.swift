import Foundation
import OMSProtocol
import Runner

/// `jobs.usage-sessions`: the first step of the usage report. Lists every remote session of the
/// identity's wallets, revoked ones included (the owner's `includeRevoked` reads of ListAccess,
/// docs/protocol.md); its output `sessions` is one object per session in wallet and grant order, which
/// the `jobs.session-usage` step iterates. A read only: running it again lists again.
///
/// It also fixes the report's period once for the run (`period_since`, `period_until` in every session
/// object, "" when open): `last-month` is resolved here, so a run resumed in another month reports the
/// same period.
public struct UsageSessionsAction: Action {
    /// The job's `period`, `since` and `until` settings, as given.
    public struct PeriodSettings: Sendable {
        public var period, since, until: String
        /// The settings as given; empty strings mean absent.
        public init(period: String = "", since: String = "", until: String = "") {
            (self.period, self.since, self.until) = (period, since, until)
        }

        /// The period against `now`.
        public func resolve(now: Int64) throws(JobsError) -> ReportPeriod? {
            try ReportPeriod.resolve(period: period, since: since, until: until, now: now)
        }
    }

    /// ListAccess requests in flight at once (one per wallet).
    public let concurrency: Int
    /// The report's period as the job names it.
    public let period: PeriodSettings
    /// The clock `last-month` is resolved against.
    public let now: @Sendable () -> Int64
    /// The signed-in client, opened on first use.
    let client: @Sendable () throws -> WaasClient

    /// An action listing with `concurrency` requests in flight through `client()`.
    public init(
        concurrency: Int = 8, period: PeriodSettings = PeriodSettings(),
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        client: @escaping @Sendable () throws -> WaasClient
    ) {
        self.concurrency = max(1, concurrency)
        self.period = period
        self.now = now
        self.client = client
    }

    public var name: String { "jobs.usage-sessions" }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let resolved: ReportPeriod?
        do { resolved = try period.resolve(now: now()) } catch { throw ActionError.permanent(error.message) }
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
                        "wallet_reference": wallet.reference ?? "",
                        "credential_id": credential.credentialId, "session_id": sessionId,
                        "app_name": credential.metadata?.appName ?? "", "app_url": credential.metadata?.appUrl ?? "",
                        "revoked": credential.revokedAt != nil ? "true" : "false",
                        "period_since": resolved?.sinceText ?? "", "period_until": resolved?.untilText ?? "",
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
