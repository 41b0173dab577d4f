import Foundation
import WalletCrypto

/// The usage report's rows and summaries, rendered as CSV, JSON, Markdown and self-contained HTML.
public struct UsageReport: Sendable {
    /// One grant of one remote session.
    public struct Row: Sendable, Equatable {
        public var walletId, walletAddress, appName, appURL, credentialId, sessionId, network, chainId: String
        public var grantKind, grantTo, grantToken, limit, used, remaining, percentUsed, usedNativeUnits: String
        public var expiresAt, status: String
        /// The report's period (RFC 3339, "" when open or when the report has none) and what the grant
        /// paid within it ("" without a period, or from a core without the extension).
        public var periodSince = "", periodUntil = "", usedInPeriod = ""
        /// What the amounts are counted in: the native symbol (POL, ETH), the token list's symbol, or for
        /// a token the list does not name, its address (the amounts then stay in base units).
        public var unit = ""
        /// The unit's decimals ("" for an unknown token) and the amounts in units (exact decimals).
        public var decimals = "", limitUnits = "", usedUnits = "", remainingUnits = "", usedInPeriodUnits = ""

        /// Creates a row; amounts are canonical unsigned decimals.
        public init(
            walletId: String, walletAddress: String, appName: String, appURL: String, credentialId: String,
            sessionId: String, network: String, chainId: String, grantKind: String, grantTo: String,
            grantToken: String, limit: String, used: String, remaining: String, percentUsed: String,
            usedNativeUnits: String, expiresAt: String, status: String
        ) {
            self.walletId = walletId
            self.walletAddress = walletAddress
            self.appName = appName
            self.appURL = appURL
            self.credentialId = credentialId
            self.sessionId = sessionId
            self.network = network
            self.chainId = chainId
            self.grantKind = grantKind
            self.grantTo = grantTo
            self.grantToken = grantToken
            self.limit = limit
            self.used = used
            self.remaining = remaining
            self.percentUsed = percentUsed
            self.usedNativeUnits = usedNativeUnits
            self.expiresAt = expiresAt
            self.status = status
        }

        /// A row of `values` in ``UsageReport/header`` order (missing ones empty).
        public init(values: [String]) {
            let v = values + Array(repeating: "", count: max(0, UsageReport.header.count - values.count))
            self.init(
                walletId: v[0], walletAddress: v[1], appName: v[2], appURL: v[3], credentialId: v[4], sessionId: v[5],
                network: v[6], chainId: v[7], grantKind: v[8], grantTo: v[9], grantToken: v[10], limit: v[11],
                used: v[12], remaining: v[13], percentUsed: v[14], usedNativeUnits: v[15], expiresAt: v[16],
                status: v[17])
            (periodSince, periodUntil, usedInPeriod) = (v[18], v[19], v[20])
            (unit, decimals, limitUnits, usedUnits, remainingUnits, usedInPeriodUnits) = (
                v[21], v[22], v[23], v[24], v[25], v[26]
            )
        }

        /// The values in ``UsageReport/header`` order.
        public var values: [String] {
            [
                walletId, walletAddress, appName, appURL, credentialId, sessionId, network, chainId, grantKind,
                grantTo, grantToken, limit, used, remaining, percentUsed, usedNativeUnits, expiresAt, status,
                periodSince, periodUntil, usedInPeriod, unit, decimals, limitUnits, usedUnits, remainingUnits,
                usedInPeriodUnits,
            ]
        }
    }

    /// The CSV header (public contract: columns are only ever added at the end).
    public static let header = [
        "wallet_id", "wallet_address", "app_name", "app_url", "credential_id", "session_id", "network", "chain_id",
        "grant_kind", "grant_to", "grant_token", "limit", "used", "remaining", "percent_used", "used_native_units",
        "expires_at", "status", "period_since", "period_until", "used_in_period", "unit", "decimals", "limit_units",
        "used_units", "remaining_units", "used_in_period_units",
    ]

    public var rows: [Row]
    public var nearLimit: Int
    public var generatedAt: Int64
    /// The period `used_in_period` covers; nil for a report of cumulative figures only.
    public var period: ReportPeriod?

    /// A report of `rows`.
    public init(rows: [Row], nearLimit: Int, generatedAt: Int64, period: ReportPeriod? = nil) {
        self.rows = rows
        self.nearLimit = nearLimit
        self.generatedAt = generatedAt
        self.period = period
    }

    /// The report's first line: its period, or that its figures are cumulative.
    public var periodLine: String {
        period.map { "Period: \($0.label)." } ?? "Period: none (cumulative figures over each session's life)."
    }

    /// A summary line: sessions, grants and native wei used per group.
    public struct Summary: Sendable, Equatable {
        public var key: String
        public var sessions: Int
        public var grants: Int
        public var nativeUsed: String
    }

    func summaries(by key: (Row) -> String) -> [Summary] {
        var order: [String] = []
        var sessions: [String: Set<String>] = [:]
        var grants: [String: Int] = [:]
        var native: [String: String] = [:]
        for row in rows {
            let name = key(row)
            if sessions[name] == nil { order.append(name) }
            sessions[name, default: []].insert(row.sessionId)
            grants[name, default: 0] += 1
            if row.grantKind == "nativeTransfer" { native[name] = DecimalAmount.add(native[name] ?? "0", row.used) }
        }
        return order.sorted().map {
            Summary(key: $0, sessions: sessions[$0]!.count, grants: grants[$0]!, nativeUsed: native[$0] ?? "0")
        }
    }

    /// Per app name.
    public var byApp: [Summary] { summaries { $0.appName } }
    /// Per wallet id.
    public var byWallet: [Summary] { summaries { $0.walletId } }

    /// Rows whose grant is at or over `nearLimit` percent.
    public var nearLimitRows: [Row] { rows.filter(isNearLimit) }

    /// Whether `row`'s grant is at or over `nearLimit` percent.
    public func isNearLimit(_ row: Row) -> Bool {
        guard !row.percentUsed.isEmpty else { return false }
        let whole = row.percentUsed.split(separator: ".").first.flatMap { Int($0) } ?? 0
        return whole >= nearLimit
    }

    // MARK: - Renderings

    public var csv: String { CSVFile.text(header: Self.header, rows: rows.map(\.values)) }

    public var json: String {
        func object(_ pairs: [(String, String)]) -> String {
            "{" + pairs.map { "\(quote($0.0)):\(quote($0.1))" }.joined(separator: ",") + "}"
        }
        func rowObject(_ row: Row) -> String { object(Array(zip(Self.header, row.values))) }
        func summary(_ s: Summary, _ name: String) -> String {
            "{\(quote(name)):\(quote(s.key)),\"sessions\":\(s.sessions),\"grants\":\(s.grants),\"native_used\":\(quote(s.nativeUsed)),\"native_used_units\":\(quote(DecimalAmount.nativeUnits(s.nativeUsed)))}"
        }
        var text = "{\n  \"generated_at\": \(quote(Self.time(generatedAt))),\n  \"near_limit\": \(nearLimit),\n"
        text += "  \"period_since\": \(quote(period?.sinceText ?? "")),\n"
        text += "  \"period_until\": \(quote(period?.untilText ?? "")),\n"
        text += "  \"rows\": [\n    " + rows.map(rowObject).joined(separator: ",\n    ") + "\n  ],\n"
        text += "  \"by_app\": [" + byApp.map { summary($0, "app_name") }.joined(separator: ",") + "],\n"
        text += "  \"by_wallet\": [" + byWallet.map { summary($0, "wallet_id") }.joined(separator: ",") + "],\n"
        text += "  \"near_limit_sessions\": [" + nearLimitRows.map(rowObject).joined(separator: ",") + "]\n}\n"
        return text
    }

    public var markdown: String {
        func table(_ header: [String], _ rows: [[String]]) -> String {
            let escape: (String) -> String = { $0.replacingOccurrences(of: "|", with: "\\|") }
            var text = "| " + header.map(escape).joined(separator: " | ") + " |\n"
            text += "|" + String(repeating: "---|", count: header.count) + "\n"
            for row in rows { text += "| " + row.map(escape).joined(separator: " | ") + " |\n" }
            return text
        }
        var text =
            "# Remote session usage\n\n\(periodLine)\n\nGenerated \(Self.time(generatedAt)); near limit: \(nearLimit)%.\n\n"
        text += "## Sessions and grants\n\n" + table(Self.header, rows.map(\.values))
        text += "\n## By app\n\n" + table(Self.summaryHeader("app_name"), byApp.map(Self.summaryValues))
        text += "\n## By wallet\n\n" + table(Self.summaryHeader("wallet_id"), byWallet.map(Self.summaryValues))
        text += "\n## At or over \(nearLimit)%\n\n" + table(Self.header, nearLimitRows.map(\.values))
        return text
    }

    static func summaryHeader(_ key: String) -> [String] {
        [key, "sessions", "grants", "native_used", "native_used_units"]
    }
    static func summaryValues(_ s: Summary) -> [String] {
        [s.key, String(s.sessions), String(s.grants), s.nativeUsed, DecimalAmount.nativeUnits(s.nativeUsed)]
    }

    static func time(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// `text` as a JSON string literal (WalletCrypto's serializer: the one escaping rule of the project).
    func quote(_ text: String) -> String { JSONValue.string(text).serialized() }
}
