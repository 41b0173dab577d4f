import Foundation
import TestSupport
import Testing

@testable import Jobs

/// The HTML report as people and printers get it (issue 26): rendered in headless Chromium at 1280x800
/// and printed to PDF by scripts/render-report.sh; the PDF's text must hold the period, every column of
/// the grants table and every field of the CSV. The screenshot and PDF stay in
/// .build/test-output/usage-report for review.
@Suite struct UsageReportRenderTests {
    static let usdc = "0x41e94eb019c0762f9bfcf9fb1e58725bfb0e7582"

    /// A report of every kind of row: native and 6-decimal tokens, an unlisted token, near the limit,
    /// expired, revoked, with a period.
    static var report: UsageReport {
        func row(
            _ index: Int, app: String, reference: String, kind: String, token: String = "", unit: String,
            decimals: String, limit: String, used: String, inPeriod: String, status: String
        ) -> UsageReport.Row {
            var row = UsageReport.Row(values: [])
            row.walletId = "wal_\(index % 3)"
            row.walletAddress = "0x" + String(repeating: String(index % 10), count: 40)
            row.walletReference = reference
            (row.appName, row.appURL, row.credentialId) = (
                app, "https://\(app.lowercased().prefix(4)).example", "0xcred\(index)"
            )
            (row.sessionId, row.network, row.chainId, row.grantKind) = ("ses_\(index)", "polygonAmoy", "80002", kind)
            (row.grantTo, row.grantToken, row.limit, row.used) = (
                "0x1111111111111111111111111111111111111111", token, limit, used
            )
            row.remaining = DecimalAmount.isAtLeast(limit, used) ? DecimalAmount.subtract(limit, used) : "0"
            row.percentUsed = DecimalAmount.percent(used: used, limit: limit)
            (row.expiresAt, row.status, row.unit, row.decimals) = ("2026-12-20T00:00:00Z", status, unit, decimals)
            (row.periodSince, row.periodUntil, row.usedInPeriod) = (
                "2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", inPeriod
            )
            let scale = Int(decimals)
            func inUnits(_ amount: String) -> String {
                scale.map { DecimalAmount.units(amount, decimals: $0) } ?? amount
            }
            (row.limitUnits, row.usedUnits, row.remainingUnits, row.usedInPeriodUnits) = (
                inUnits(limit), inUnits(used), inUnits(row.remaining), inUnits(inPeriod)
            )
            row.usedNativeUnits = kind == "nativeTransfer" ? DecimalAmount.nativeUnits(used) : ""
            return row
        }
        var rows: [UsageReport.Row] = []
        for index in 0..<12 {
            let app = ["Payroll Bot", "Game Server", "Treasury Sweeper"][index % 3]
            let reference = ["treasury", "payroll", "ops-hot"][index % 3]
            let status = index == 4 ? "revoked" : index == 7 ? "expired" : "active"
            rows.append(
                row(
                    index, app: app, reference: reference, kind: "nativeTransfer", unit: "POL", decimals: "18",
                    limit: "1000000000000000000", used: String(index * 80_000_000_000_000_000 + 5),
                    inPeriod: String(index * 10_000_000_000_000_000), status: status))
            rows.append(
                row(
                    index, app: app, reference: reference, kind: "erc20Transfer",
                    token: index == 5 ? "0x3333333333333333333333333333333333333333" : Self.usdc,
                    unit: index == 5 ? "0x3333333333333333333333333333333333333333" : "USDC",
                    decimals: index == 5 ? "" : "6", limit: "500000000", used: String(index * 41_000_000),
                    inPeriod: String(index * 1_000_000), status: status))
        }
        return UsageReport(
            rows: rows, nearLimit: 80, generatedAt: 1_796_083_500,
            period: ReportPeriod(since: 1_793_491_200, until: 1_796_083_200))
    }

    @Test func theHTMLHasTheSummaryFirstAndAChartWithAxisAndLegend() {
        let html = Self.report.html
        let summary = html.range(of: "<h2>Summary</h2>")!.lowerBound
        #expect(summary < html.range(of: "<h2>Used against limit</h2>")!.lowerBound)
        #expect(summary < html.range(of: "<h2>Sessions and grants</h2>")!.lowerBound)
        #expect(html.contains("Payroll Bot · treasury · POL to 0x1111...1111"), "bars named by app and wallet")
        #expect(html.contains(">0%</text>") && html.contains(">100%</text>"), "an axis")
        #expect(html.contains("<rect class=\"revoked\"") && html.contains("<rect class=\"expired\""))
        #expect(html.contains("<rect class=\"near-limit\"") && html.contains("<i class=\"revoked\"></i>revoked"))
        #expect(html.contains("88.00%  0.880000000000000005 POL of 1 POL"), "amounts in units beside the bar")
        #expect(html.contains("@page{size:letter landscape"))
    }

    @Test func printedToPDFEveryColumnAndThePeriodArePresent() throws {
        guard let rendered = try RenderedReport.render(Self.report.html, name: "usage-report") else { return }
        #expect(rendered.screenshot.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG screenshot")
        #expect(rendered.screenshot.count > 20_000, "the screenshot is not blank (\(rendered.screenshot.count) bytes)")
        let text = rendered.printedText
        #expect(text.contains("Period: 2026-11-01T00:00:00Z to 2026-12-01T00:00:00Z (end excluded)."))
        for column in UsageReport.mainColumns + UsageReport.header {
            #expect(text.contains(column), "the printed report has the column \(column)")
        }
        // Every value a person needs on paper: the last columns of the last grant too.
        #expect(text.contains("ses_11") && text.contains("2026-12-20T00:00:00Z") && text.contains("revoked"))
        #expect(text.contains("0.88") && text.contains("POL") && text.contains("USDC"))
    }
}

extension UsageReportRenderTests {
    /// A large account's page stays openable: at most 2,000 grants in the table, the nearest their limit.
    @Test func aLargeReportsTableKeepsTheGrantsNearestTheirLimit() {
        var rows: [UsageReport.Row] = []
        for index in 0..<2_500 {
            var row = UsageReport.Row(values: [])
            (row.sessionId, row.limit, row.used, row.status) = ("ses_\(index)", "10000", String(index), "active")
            row.percentUsed = DecimalAmount.percent(used: row.used, limit: row.limit)
            rows.append(row)
        }
        let html = UsageReport(rows: rows, nearLimit: 80, generatedAt: 0).html
        #expect(html.contains("The 2000 grants nearest their limit of 2500; usage.csv and usage.json"))
        #expect(html.components(separatedBy: "<tr class=\"grant").count - 1 == 2_000)
        #expect(html.contains("<dd>ses_2499</dd>") && html.contains("<dd>ses_500</dd>"))
        #expect(!html.contains("<dd>ses_499</dd>"), "the 500 least used are left to the CSV")
    }
}
