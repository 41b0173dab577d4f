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
        /// The wallet's reference (treasury, payroll), "" when it has none.
        public var walletReference = ""

        /// The wallet as a person names it: its reference, else its id.
        public var walletName: String { walletReference.isEmpty ? walletId : walletReference }
        /// What the grant allows: `native to 0x1111...1111`, `USDC to any`.
        public var grantLabel: String {
            let what =
                grantKind == "nativeTransfer" ? (unit.isEmpty ? "native" : unit) : (unit.isEmpty ? grantToken : unit)
            return "\(Self.short(what)) to \(grantTo.isEmpty ? "any" : Self.short(grantTo))"
        }

        /// `0x1111...1111`: an address a person can tell apart, short enough for a table.
        static func short(_ address: String) -> String {
            address.count > 14 ? "\(address.prefix(6))...\(address.suffix(4))" : address
        }

        /// An amount with its unit: "0.85 POL", or for an unlisted token "250 base units of 0x3333...".
        func amountText(_ units: String, raw: String) -> String {
            let (unit, decimals) = amountUnit
            return UnitTotal.text(units.isEmpty ? raw : units, unit: unit, known: decimals != nil)
        }

        /// The unit of the raw amounts when the row predates the unit columns.
        var amountUnit: (unit: String, decimals: Int?) {
            if !unit.isEmpty { return (unit, Int(decimals)) }
            return grantToken.isEmpty ? ("wei", 0) : (grantToken, nil)
        }

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
            walletReference = v[27]
        }

        /// The values in ``UsageReport/header`` order.
        public var values: [String] {
            [
                walletId, walletAddress, appName, appURL, credentialId, sessionId, network, chainId, grantKind,
                grantTo, grantToken, limit, used, remaining, percentUsed, usedNativeUnits, expiresAt, status,
                periodSince, periodUntil, usedInPeriod, unit, decimals, limitUnits, usedUnits, remainingUnits,
                usedInPeriodUnits, walletReference,
            ]
        }
    }

    /// The CSV header (public contract: columns are only ever added at the end).
    public static let header = [
        "wallet_id", "wallet_address", "app_name", "app_url", "credential_id", "session_id", "network", "chain_id",
        "grant_kind", "grant_to", "grant_token", "limit", "used", "remaining", "percent_used", "used_native_units",
        "expires_at", "status", "period_since", "period_until", "used_in_period", "unit", "decimals", "limit_units",
        "used_units", "remaining_units", "used_in_period_units", "wallet_reference",
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

    /// What a group of grants used in one unit: raw sums, and the same in units.
    public struct UnitTotal: Sendable, Equatable {
        /// The symbol, or an unlisted token's address.
        public var unit: String
        /// nil for a token the list does not name (the amounts are then base units).
        public var decimals: Int?
        public var used: String
        public var usedInPeriod: String

        /// `used` in units, e.g. "0.85".
        public var usedUnits: String { decimals.map { DecimalAmount.units(used, decimals: $0) } ?? used }
        /// `usedInPeriod` in units.
        public var usedInPeriodUnits: String {
            decimals.map { DecimalAmount.units(usedInPeriod, decimals: $0) } ?? usedInPeriod
        }
        /// How a person reads an amount: "0.85 POL", "250 USDC", or for an unlisted token "250 base units
        /// of 0x3333...3333" (the whole address is in the row's grant_token).
        static func text(_ units: String, unit: String, known: Bool) -> String {
            known ? "\(units) \(unit)" : "\(units) base units of \(Row.short(unit))"
        }
        public var usedText: String { Self.text(usedUnits, unit: unit, known: decimals != nil) }
        public var usedInPeriodText: String { Self.text(usedInPeriodUnits, unit: unit, known: decimals != nil) }
    }

    /// A summary line: sessions, grants and what they used per unit (native and ERC-20) in one group.
    public struct Summary: Sendable, Equatable {
        public var key: String
        /// The group as a person names it (an app's name, a wallet's reference, a network's name).
        public var name: String
        public var sessions: Int
        public var grants: Int
        /// Native wei used (the field the summaries always had).
        public var nativeUsed: String
        /// Used per unit, native first, then by unit.
        public var totals: [UnitTotal]
    }

    func summaries(by key: (Row) -> String, name: (Row) -> String = { _ in "" }) -> [Summary] {
        var names: [String: String] = [:]
        var sessions: [String: Set<String>] = [:]
        var grants: [String: Int] = [:]
        var native: [String: String] = [:]
        var totals: [String: [String: UnitTotal]] = [:]
        for row in rows {
            let group = key(row)
            if names[group] == nil { names[group] = name(row) }
            sessions[group, default: []].insert(row.sessionId)
            grants[group, default: 0] += 1
            if row.grantKind == "nativeTransfer" { native[group] = DecimalAmount.add(native[group] ?? "0", row.used) }
            let (unit, decimals) = row.amountUnit
            let unitKey = "\(row.grantKind == "nativeTransfer" ? 0 : 1) \(unit) \(decimals ?? -1)"
            var total =
                totals[group]?[unitKey] ?? UnitTotal(unit: unit, decimals: decimals, used: "0", usedInPeriod: "0")
            total.used = DecimalAmount.add(total.used, row.used)
            total.usedInPeriod = DecimalAmount.add(total.usedInPeriod, row.usedInPeriod)
            totals[group, default: [:]][unitKey] = total
        }
        return sessions.keys.sorted().map { group in
            Summary(
                key: group, name: names[group] ?? "", sessions: sessions[group]!.count, grants: grants[group]!,
                nativeUsed: native[group] ?? "0",
                totals: (totals[group] ?? [:]).sorted { $0.key < $1.key }.map(\.value))
        }
    }

    /// Per app name.
    public var byApp: [Summary] { summaries(by: \.appName, name: \.appName) }
    /// Per wallet id, named by the wallet's reference.
    public var byWallet: [Summary] { summaries(by: \.walletId, name: \.walletName) }
    /// Per network.
    public var byNetwork: [Summary] { summaries(by: \.network, name: \.network) }

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
        func summary(_ s: Summary, _ keyName: String, _ nameField: String?) -> String {
            var text = "{\(quote(keyName)):\(quote(s.key)),"
            if let nameField { text += "\(quote(nameField)):\(quote(s.name))," }
            text += "\"sessions\":\(s.sessions),\"grants\":\(s.grants),\"native_used\":\(quote(s.nativeUsed)),"
            text += "\"native_used_units\":\(quote(DecimalAmount.nativeUnits(s.nativeUsed))),\"used\":["
            text += s.totals.map { total in
                object([
                    ("unit", total.unit), ("decimals", total.decimals.map(String.init) ?? ""), ("used", total.used),
                    ("used_units", total.usedUnits), ("used_in_period", total.usedInPeriod),
                    ("used_in_period_units", total.usedInPeriodUnits),
                ])
            }.joined(separator: ",")
            return text + "]}"
        }
        var text = "{\n  \"generated_at\": \(quote(Self.time(generatedAt))),\n  \"near_limit\": \(nearLimit),\n"
        text += "  \"period_since\": \(quote(period?.sinceText ?? "")),\n"
        text += "  \"period_until\": \(quote(period?.untilText ?? "")),\n"
        text += "  \"rows\": [\n    " + rows.map(rowObject).joined(separator: ",\n    ") + "\n  ],\n"
        text += "  \"by_app\": [" + byApp.map { summary($0, "app_name", nil) }.joined(separator: ",") + "],\n"
        text +=
            "  \"by_wallet\": [" + byWallet.map { summary($0, "wallet_id", "wallet_reference") }.joined(separator: ",")
            + "],\n"
        text += "  \"by_network\": [" + byNetwork.map { summary($0, "network", nil) }.joined(separator: ",") + "],\n"
        text += "  \"near_limit_sessions\": [" + nearLimitRows.map(rowObject).joined(separator: ",") + "]\n}\n"
        return text
    }

    /// The report for people: the period, the summaries by app, wallet and network (native and ERC-20,
    /// in units), and the grants near their limit; every grant's 30 columns are in usage.csv.
    public var markdown: String {
        func table(_ header: [String], _ rows: [[String]]) -> String {
            let escape: (String) -> String = { $0.replacingOccurrences(of: "|", with: "\\|") }
            var text = "| " + header.map(escape).joined(separator: " | ") + " |\n"
            text += "|" + String(repeating: "---|", count: header.count) + "\n"
            for row in rows { text += "| " + row.map(escape).joined(separator: " | ") + " |\n" }
            return text
        }
        var text = "# Remote session usage\n\n\(periodLine)\n\n"
        text += "Generated \(Self.time(generatedAt)); \(rows.count) grants in \(sessionCount) sessions; "
        text += "near limit: \(nearLimit)%. Every grant's figures: usage.csv (or usage.html).\n\n"
        for section in summarySections {
            text += "## \(section.title)\n\n" + table(section.header, section.rows) + "\n"
        }
        text += "## At or over \(nearLimit)%\n\n" + table(Self.nearLimitHeader, nearLimitRows.map(Self.nearLimitValues))
        return text
    }

    /// The number of distinct sessions.
    public var sessionCount: Int { Set(rows.map(\.sessionId)).count }

    /// A summary table as the human formats show it.
    struct SummarySection {
        var id, title: String
        var header: [String]
        var rows: [[String]]
    }

    /// The three summaries, amounts in units ("0.85 POL; 250 USDC"); the period's column only with a period.
    var summarySections: [SummarySection] {
        let amounts = period == nil ? ["used"] : ["used", "used in period"]
        func values(_ s: Summary) -> [String] {
            var values = [String(s.sessions), String(s.grants), s.totals.map(\.usedText).joined(separator: "; ")]
            if period != nil { values.append(s.totals.map(\.usedInPeriodText).joined(separator: "; ")) }
            return values
        }
        return [
            SummarySection(
                id: "apps", title: "By app", header: ["app", "sessions", "grants"] + amounts,
                rows: byApp.map { [$0.name] + values($0) }),
            SummarySection(
                id: "wallets", title: "By wallet", header: ["wallet", "wallet id", "sessions", "grants"] + amounts,
                rows: byWallet.map { [$0.name, $0.key] + values($0) }),
            SummarySection(
                id: "networks", title: "By network", header: ["network", "sessions", "grants"] + amounts,
                rows: byNetwork.map { [$0.name] + values($0) }),
        ]
    }

    static let nearLimitHeader = ["app", "wallet", "session", "grant", "used", "limit", "percent used", "status"]

    static func nearLimitValues(_ row: Row) -> [String] {
        [
            row.appName, row.walletName, row.sessionId, row.grantLabel, row.amountText(row.usedUnits, raw: row.used),
            row.amountText(row.limitUnits, raw: row.limit), row.percentUsed + "%", row.status,
        ]
    }

    static func time(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// `text` as a JSON string literal (WalletCrypto's serializer: the one escaping rule of the project).
    func quote(_ text: String) -> String { JSONValue.string(text).serialized() }
}
