import Foundation
import OMSProtocol
import Runner

/// `jobs.session-usage`: the second step of the usage report, over the sessions `jobs.usage-sessions`
/// listed (`for_each: ${{ steps.sessions.outputs.sessions }}`). Each session is one row of the run:
/// GetSession and GetSessionUsage on its network, and one line per grant of the session in
/// `<output_dir>/usage.csv` (a sink, in session order; header ``UsageReport/header``). With a period
/// (the item's `period_since`/`period_until`, which the sessions step fixed), GetSessionUsage also sums
/// each grant's transfers within it.
public struct SessionUsageAction: ChunkAction {
    /// The report's folder (`usage.csv` goes in it).
    public let outputDirectory: String
    /// The operator's ERC-20 symbols and decimals (`token_list`); tokens it does not name stay in base units.
    public let tokens: TokenList
    /// When the report is made (a session is `expired` from its expiry on).
    public let now: @Sendable () -> Int64
    /// The signed-in client, opened on the first chunk.
    let client: @Sendable () throws -> WaasClient

    /// An action writing `<outputDirectory>/usage.csv`, reading through `client()`.
    public init(
        outputDirectory: String, tokens: TokenList = TokenList(),
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        client: @escaping @Sendable () throws -> WaasClient
    ) {
        self.outputDirectory = outputDirectory
        self.tokens = tokens
        self.now = now
        self.client = client
    }

    public var name: String { "jobs.session-usage" }
    /// One session per chunk: two reads each, so the step's concurrency is the sessions read at once.
    public var defaultBatch: Int { 1 }

    /// `usage.csv` in `directory`.
    public static func rowsPath(in directory: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent("usage.csv").path
    }

    public var sinks: [OutputSink] {
        [
            OutputSink(path: Self.rowsPath(in: outputDirectory), header: UsageReport.header) { record in
                guard record.state == .succeeded, let text = record.outputs["rows"],
                    let rows = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8))
                else { return [] }
                return rows
            }
        ]
    }

    public func run(chunk: [WorkItem], context: ChunkContext) async throws -> [ItemOutcome] {
        let client = try client()
        var outcomes: [ItemOutcome] = []
        for item in chunk {
            let fields = item.fields
            guard let sessionId = fields["session_id"], !sessionId.isEmpty else {
                outcomes.append(.rejected(reason: "the item has no session_id"))
                continue
            }
            let revoked = fields["revoked"] == "true"
            let period = ReportPeriod(sinceText: fields["period_since"] ?? "", untilText: fields["period_until"] ?? "")
            do {
                let session: RemoteSession
                if let listed = Self.listedSession(fields) {
                    session = listed
                } else {
                    session = try await client.call(
                        .getSession, GetSessionRequest(sessionId: sessionId, includeRevoked: revoked ? true : nil),
                        as: GetSessionResponse.self
                    ).session
                }
                let usage = try await client.call(
                    .getSessionUsage,
                    GetSessionUsageRequest(
                        sessionId: sessionId, network: session.chainId, includeRevoked: revoked ? true : nil,
                        since: period.map { $0.sinceText.isEmpty ? nil : $0.sinceText } ?? nil,
                        until: period.map { $0.untilText.isEmpty ? nil : $0.untilText } ?? nil),
                    as: GetSessionUsageResponse.self)
                let rows = Self.rows(
                    fields: fields, session: session, usage: usage, period: period, tokens: tokens, now: now())
                outcomes.append(
                    .succeeded(
                        ActionResult(outputs: [
                            "rows": try OutputJSON.text(rows.map(\.values)),
                            "grants": String(rows.count),
                        ])))
            } catch {
                let failure = JobFailure.classify(error)
                if failure.stopsRun { throw failure }
                outcomes.append(.failed(failure.errorClass, failure.message))
            }
        }
        return outcomes
    }

    /// The session as the sessions step listed it (`chain_id`, `expires_at`, `revoked_at` from ListSessions
    /// with details), so no GetSession is needed; nil when the listing had no such fields (read per wallet).
    static func listedSession(_ fields: [String: String]) -> RemoteSession? {
        guard let chainId = fields["chain_id"], !chainId.isEmpty, let expiresAt = fields["expires_at"],
            !expiresAt.isEmpty
        else { return nil }
        return RemoteSession(
            sessionId: fields["session_id"] ?? "", walletId: fields["wallet_id"] ?? "",
            signerAddress: fields["credential_id"] ?? "", grants: [], chainId: chainId, expiresAt: expiresAt,
            revokedAt: fields["revoked_at"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The report rows of one session: one per grant.
    static func rows(
        fields: [String: String], session: RemoteSession, usage: GetSessionUsageResponse, period: ReportPeriod? = nil,
        tokens: TokenList = TokenList(), now: Int64
    ) -> [UsageReport.Row] {
        let revoked = fields["revoked"] == "true"
        let expiry = RFC3339.parse(session.expiresAt) ?? 0
        let known = Network.all.first { String($0.chainId) == session.chainId }
        let network = known?.name ?? session.chainId
        return usage.entries.map { entry in
            let limit = entry.grant.nativeTransfer?.limit ?? entry.grant.erc20Transfer?.limit ?? "0"
            let used = entry.used ?? "0"
            let isNative = entry.grant.kind == .nativeTransfer
            var row = UsageReport.Row(
                walletId: fields["wallet_id"] ?? "", walletAddress: fields["wallet_address"] ?? "",
                appName: fields["app_name"] ?? "", appURL: fields["app_url"] ?? "",
                credentialId: fields["credential_id"] ?? "", sessionId: fields["session_id"] ?? "",
                network: network, chainId: session.chainId, grantKind: entry.grant.kind.rawValue,
                grantTo: entry.grant.nativeTransfer?.to ?? entry.grant.erc20Transfer?.to ?? "",
                grantToken: entry.grant.erc20Transfer?.token ?? "", limit: limit, used: used,
                remaining: entry.remaining
                    ?? (DecimalAmount.isAtLeast(limit, used)
                        ? DecimalAmount.subtract(DecimalAmount.normalized(limit), DecimalAmount.normalized(used))
                        : "0"),
                percentUsed: DecimalAmount.percent(used: used, limit: limit),
                usedNativeUnits: isNative ? DecimalAmount.nativeUnits(used) : "",
                expiresAt: session.expiresAt,
                status: Self.status(revoked: revoked || session.revokedAt != nil, expiry: expiry, now: now))
            row.walletReference = fields["wallet_reference"] ?? ""
            if let period {
                (row.periodSince, row.periodUntil) = (period.sinceText, period.untilText)
                row.usedInPeriod = entry.usedInPeriod ?? ""
            }
            let decimals: Int?
            if let token = entry.grant.erc20Transfer?.token {
                let listed = UInt64(session.chainId).flatMap { tokens.token(chainId: $0, address: token) }
                (row.unit, decimals) = (listed?.symbol ?? token.lowercased(), listed?.decimals)
            } else {
                (row.unit, decimals) = (known?.nativeCurrency.symbol ?? "wei", known?.nativeCurrency.decimals)
            }
            row.decimals = decimals.map(String.init) ?? ""
            func inUnits(_ amount: String) -> String {
                amount.isEmpty ? "" : decimals.map { DecimalAmount.units(amount, decimals: $0) } ?? amount
            }
            (row.limitUnits, row.usedUnits, row.remainingUnits, row.usedInPeriodUnits) = (
                inUnits(row.limit), inUnits(row.used), inUnits(row.remaining), inUnits(row.usedInPeriod)
            )
            return row
        }
    }

    /// `revoked` wins over `expired` (a revoked session would not come back at its expiry), then `active`.
    static func status(revoked: Bool, expiry: Int64, now: Int64) -> String {
        revoked ? "revoked" : expiry <= now ? "expired" : "active"
    }
}
