import Foundation
import OMSCore
import OMSProtocol
import Runner

/// `jobs.usage-report`: for every remote session of the identity's wallets, the session, its grants and
/// the usage per network, written as CSV, JSON, Markdown and a self-contained HTML file.
public struct UsageReportAction: Action {
    /// The report's settings.
    public struct Configuration: Sendable {
        public var outputDirectory: String
        /// Any of csv, json, md, html.
        public var formats: [String]
        /// Sessions at or over this percentage of a limit are listed as near the limit.
        public var nearLimit: Int
        public var coreURL: URL?
        /// Requests in flight at once while collecting.
        public var concurrency: Int
        public var now: @Sendable () -> Int64

        /// Creates a configuration.
        public init(
            outputDirectory: String, formats: [String], nearLimit: Int = 80, coreURL: URL? = nil, concurrency: Int = 8,
            now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        ) {
            self.outputDirectory = outputDirectory
            self.formats = formats
            self.nearLimit = nearLimit
            self.coreURL = coreURL
            self.concurrency = max(1, concurrency)
            self.now = now
        }
    }

    public let configuration: Configuration

    /// An action for `configuration`.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    public var name: String { "jobs.usage-report" }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let session = try JobSession.shared(home: JobSession.commandHome(), coreURL: configuration.coreURL)
        let rows = try await Self.collect(
            client: session.client, now: configuration.now(), concurrency: configuration.concurrency)
        let report = UsageReport(rows: rows, nearLimit: configuration.nearLimit, generatedAt: configuration.now())
        var written: [String] = []
        for format in configuration.formats {
            let path = URL(fileURLWithPath: configuration.outputDirectory).appendingPathComponent("usage.\(format)")
                .path
            let text: String
            switch format {
            case "csv": text = report.csv
            case "json": text = report.json
            case "md": text = report.markdown
            case "html": text = report.html
            default: throw ActionError.permanent("unknown report format '\(format)' (use csv, json, md, html)")
            }
            try CSVFile.writeText(path: path, text)
            written.append(path)
        }
        return ActionResult(outputs: [
            "rows": String(rows.count), "sessions": String(Set(rows.map(\.sessionId)).count),
            "files": written.joined(separator: ","),
        ])
    }

    /// One row per grant of every remote session of every wallet, revoked sessions included (the owner's
    /// `includeRevoked` reads of ListAccess, GetSession and GetSessionUsage, docs/protocol.md).
    static func collect(client: WaasClient, now: Int64, concurrency: Int = 8) async throws -> [UsageReport.Row] {
        let wallets = try await StaleNonce.retrying { try await CoreConnection.allWallets(client) }
        // Wallets' grants, then each session's details and usage, fetched with `concurrency` requests in
        // flight; rows are assembled afterwards in wallet and grant order, so the report is stable.
        let listed = try await RevokeSweepAction.bounded(Array(wallets.indices), limit: concurrency) { index in
            try await RevokeSweepAction.allAccess(
                client: client, walletId: wallets[index].id, type: .remote, includeRevoked: true)
        }
        let grantsByWallet = Dictionary(uniqueKeysWithValues: listed)
        let sessions: [(wallet: Wallet, credential: CredentialInfo, sessionId: String)] = wallets.indices.flatMap {
            index in
            (grantsByWallet[index] ?? []).compactMap { credential in
                credential.sessionId.map { (wallets[index], credential, $0) }
            }
        }
        let fetched = try await RevokeSweepAction.bounded(Array(sessions.indices), limit: concurrency) { index in
            let sessionId = sessions[index].sessionId
            let revoked = sessions[index].credential.revokedAt != nil
            let session = try await client.jobCall(
                .getSession, GetSessionRequest(sessionId: sessionId, includeRevoked: revoked ? true : nil),
                as: GetSessionResponse.self
            ).session
            let usage = try await client.jobCall(
                .getSessionUsage,
                GetSessionUsageRequest(
                    sessionId: sessionId, network: session.chainId, includeRevoked: revoked ? true : nil),
                as: GetSessionUsageResponse.self)
            return (session, usage)
        }
        let details = Dictionary(uniqueKeysWithValues: fetched)
        var rows: [UsageReport.Row] = []
        for (index, entry) in sessions.enumerated() {
            guard let (session, usage) = details[index] else { continue }
            rows += Self.rows(
                wallet: entry.wallet, credential: entry.credential, session: session, usage: usage, now: now)
        }
        return rows
    }

    /// The report rows of one session: one per grant.
    static func rows(
        wallet: Wallet, credential: CredentialInfo, session: RemoteSession, usage: GetSessionUsageResponse, now: Int64
    ) -> [UsageReport.Row] {
        let revoked = credential.revokedAt != nil
        let sessionId = credential.sessionId ?? ""
        let expiry = RFC3339.parse(session.expiresAt) ?? 0
        let network = Network.all.first { String($0.chainId) == session.chainId }?.name ?? session.chainId
        return usage.entries.map { entry in
            let limit = entry.grant.nativeTransfer?.limit ?? entry.grant.erc20Transfer?.limit ?? "0"
            let used = entry.used ?? "0"
            let isNative = entry.grant.kind == .nativeTransfer
            return UsageReport.Row(
                walletId: wallet.id, walletAddress: wallet.address,
                appName: credential.metadata?.appName ?? "", appURL: credential.metadata?.appUrl ?? "",
                credentialId: credential.credentialId, sessionId: sessionId, network: network,
                chainId: session.chainId, grantKind: entry.grant.kind.rawValue,
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
        }
    }

    /// `revoked` wins over `expired` (a revoked session would not come back at its expiry), then `active`.
    static func status(revoked: Bool, expiry: Int64, now: Int64) -> String {
        revoked ? "revoked" : expiry <= now ? "expired" : "active"
    }
}
