import Foundation
import OMSProtocol
import Runner

/// `jobs.usage-sessions`: the first step of the usage report. Lists every remote session of the
/// identity's wallets, revoked ones included, in pages of the account's sessions (the owner's ListSessions
/// with `includeRevoked` and `includeDetails`, docs/protocol.md; a core without them is read per wallet);
/// its output `sessions` is one object per session (with its chain and expiry when listed in pages, so the
/// next step reads only its usage), which the `jobs.session-usage` step iterates. A read only: running it
/// again lists again.
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

    /// ListAccess requests in flight at once, against a core that lists sessions only per wallet.
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
            var sessions: [[String: String]] = []
            let period = (since: resolved?.sinceText ?? "", until: resolved?.untilText ?? "")
            if try await Self.listSessionsInPages(client, period: period, into: &sessions) == false {
                sessions = try await listPerWallet(client, period: period)
            }
            return ActionResult(outputs: [
                "sessions": try OutputJSON.text(sessions), "count": String(sessions.count),
            ])
        } catch {
            throw JobFailure.classify(error)
        }
    }

    /// One session object of the step's output.
    static func session(
        walletId: String, walletAddress: String, walletReference: String, credentialId: String, sessionId: String,
        metadata: CredentialMetadata?, revoked: Bool, period: (since: String, until: String),
        listed: RemoteSession? = nil
    ) -> [String: String] {
        var session = [
            "wallet_id": walletId, "wallet_address": walletAddress, "wallet_reference": walletReference,
            "credential_id": credentialId, "session_id": sessionId, "app_name": metadata?.appName ?? "",
            "app_url": metadata?.appUrl ?? "", "revoked": revoked ? "true" : "false", "period_since": period.since,
            "period_until": period.until,
        ]
        if let listed {
            (session["chain_id"], session["expires_at"]) = (listed.chainId, listed.expiresAt)
            session["revoked_at"] = listed.revokedAt ?? ""
        }
        return session
    }

    /// The account's sessions, revoked ones too, 100 a page with their apps and wallets (ListSessions
    /// `includeRevoked` and `includeDetails`, docs/protocol.md): requests grow with the sessions, not the
    /// wallets. False when the core answers without the details (a core without the extension).
    static func listSessionsInPages(
        _ client: WaasClient, period: (since: String, until: String), into sessions: inout [[String: String]]
    ) async throws -> Bool {
        var page: Page? = Page(limit: 100)
        repeat {
            let response = try await client.call(
                .listSessions, ListSessionsRequest(page: page, includeRevoked: true, includeDetails: true),
                as: ListSessionsResponse.self)
            for session in response.sessions {
                guard let address = session.walletAddress else { return false }
                sessions.append(
                    Self.session(
                        walletId: session.walletId, walletAddress: address,
                        walletReference: session.walletReference ?? "", credentialId: session.signerAddress,
                        sessionId: session.sessionId, metadata: session.metadata, revoked: session.revokedAt != nil,
                        period: period, listed: session))
            }
            page = response.page.flatMap { $0.hasMore ? Page(limit: $0.limit, cursor: $0.cursor) : nil }
        } while page != nil
        return true
    }

    /// A core without the paged details: every wallet's grants (ListAccess `includeRevoked`, one listing
    /// per wallet, `concurrency` at once), in wallet and grant order.
    func listPerWallet(_ client: WaasClient, period: (since: String, until: String)) async throws
        -> [[String: String]]
    {
        let wallets = try await CoreConnection.allWallets(client)
        let listed = try await ConcurrentReads.map(wallets, limit: concurrency) { wallet in
            try await ConcurrentReads.allAccess(
                client: client, walletId: wallet.id, type: .remote, includeRevoked: true)
        }
        var sessions: [[String: String]] = []
        for (wallet, credentials) in zip(wallets, listed) {
            for credential in credentials {
                guard let sessionId = credential.sessionId else { continue }
                sessions.append(
                    Self.session(
                        walletId: wallet.id, walletAddress: wallet.address, walletReference: wallet.reference ?? "",
                        credentialId: credential.credentialId, sessionId: sessionId, metadata: credential.metadata,
                        revoked: credential.revokedAt != nil, period: period))
            }
        }
        return sessions
    }
}
