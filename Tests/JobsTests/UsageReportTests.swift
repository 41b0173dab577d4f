import Foundation
import Jobs
import Testing

@Suite struct UsageReportTests {
    static func row(session: String, app: String, kind: String = "nativeTransfer", limit: String, used: String)
        -> UsageReport.Row
    {
        UsageReport.Row(
            walletId: "wal_1", walletAddress: "0x00000000000000000000000000000000000000aa", appName: app,
            appURL: "https://a.example", credentialId: "0xcred", sessionId: session, network: "polygonAmoy",
            chainId: "80002", grantKind: kind, grantTo: "0x1111111111111111111111111111111111111111", grantToken: "",
            limit: limit, used: used, remaining: "0", percentUsed: DecimalAmount.percent(used: used, limit: limit),
            usedNativeUnits: DecimalAmount.nativeUnits(used), expiresAt: "2030-01-01T00:00:00Z", status: "active")
    }

    @Test func exactAmounts() {
        #expect(DecimalAmount.nativeUnits("0") == "0")
        #expect(DecimalAmount.nativeUnits("1") == "0.000000000000000001")
        #expect(DecimalAmount.nativeUnits("1500000000000000000") == "1.5")
        #expect(DecimalAmount.nativeUnits("1000000000000000000") == "1")
        let max = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
        #expect(
            DecimalAmount.nativeUnits(max)
                == "115792089237316195423570985008687907853269984665640564039457.584007913129639935")
        #expect(DecimalAmount.percent(used: "850000000000000000", limit: "1000000000000000000") == "85.00")
        #expect(DecimalAmount.percent(used: "1", limit: "3") == "33.33")
        #expect(DecimalAmount.percent(used: max, limit: max) == "100.00")
        #expect(DecimalAmount.percent(used: "5", limit: "0") == "")
        #expect(DecimalAmount.add(max, "0") == max)
        #expect(DecimalAmount.add("999", "1") == "1000")
        #expect(DecimalAmount.isAtLeast("10", "9") && !DecimalAmount.isAtLeast("9", "10"))
    }

    @Test func summariesAndNearLimit() {
        let report = UsageReport(
            rows: [
                Self.row(session: "ses_a", app: "B", limit: "100", used: "80"),
                Self.row(session: "ses_a", app: "B", kind: "erc20Transfer", limit: "100", used: "10"),
                Self.row(session: "ses_b", app: "A", limit: "100", used: "79"),
            ], nearLimit: 80, generatedAt: 0)
        #expect(report.nearLimitRows.map(\.sessionId) == ["ses_a"])
        #expect(report.byApp.map(\.key) == ["A", "B"])
        #expect(report.byApp.map(\.sessions) == [1, 1])
        #expect(report.byApp.map(\.nativeUsed) == ["79", "80"])
        #expect(report.byWallet.first?.grants == 3)
        #expect(report.csv.hasPrefix(UsageReport.header.joined(separator: ",") + "\r\n"))
        let json = try? JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any]
        #expect((json?["rows"] as? [Any])?.count == 3)
        #expect((json?["near_limit_sessions"] as? [Any])?.count == 1)
    }

    @Test func htmlIsSelfContainedAndEscaped() {
        let report = UsageReport(
            rows: [Self.row(session: "ses_<x>", app: "<script>alert(1)</script>", limit: "10", used: "5")],
            nearLimit: 80, generatedAt: 0)
        let html = report.html
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<svg") && html.contains("class=\"sortable\""))
        #expect(!html.contains("<script>alert(1)"), "cells are escaped")
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        // Nothing is fetched: no src, href, url() or @import (the SVG namespace URI is a name, not a fetch).
        #expect(
            !html.contains("src=") && !html.contains("href=") && !html.contains("url(") && !html.contains("@import"))
    }

    @Test func csvQuotingRoundTrips() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-csv-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("out.csv").path
        try CSVFile.write(
            path: path, header: ["reference", "note"], rows: [["a,b", "say \"hi\""], ["line\nbreak", ""]])
        let rows = try CSVFile.read(path: path)
        #expect(rows == [["reference": "a,b", "note": "say \"hi\""], ["reference": "line\nbreak", "note": ""]])
    }
}

@Suite struct ReportPeriodTests {
    static let november = ReportPeriod(since: 1_793_491_200, until: 1_796_083_200)

    @Test func monthsAndLastMonth() throws {
        #expect(try ReportPeriod.resolve(period: "2026-11", since: "", until: "", now: 0) == Self.november)
        #expect(Self.november.sinceText == "2026-11-01T00:00:00Z" && Self.november.untilText == "2026-12-01T00:00:00Z")
        // last-month from any time of December is November; from January, the December before.
        let december15 = Int64(1_796_083_200 + 14 * 86_400 + 3_600)
        #expect(try ReportPeriod.resolve(period: "last-month", since: "", until: "", now: december15) == Self.november)
        let january1 = Int64(1_798_761_600)  // 2027-01-01T00:00:00Z
        let december = try #require(try ReportPeriod.resolve(period: "last-month", since: "", until: "", now: january1))
        #expect(december.sinceText == "2026-12-01T00:00:00Z" && december.untilText == "2027-01-01T00:00:00Z")
        let february = try #require(try ReportPeriod.resolve(period: "2028-02", since: "", until: "", now: 0))
        #expect(february.until! - february.since! == 29 * 86_400, "2028 is a leap year")
        #expect(try ReportPeriod.resolve(period: "", since: "", until: "", now: 0) == nil)
    }

    @Test func sinceAndUntil() throws {
        let open = try #require(
            try ReportPeriod.resolve(period: "", since: "2026-11-01T00:00:00Z", until: "", now: 0))
        #expect(open.since == 1_793_491_200 && open.until == nil)
        #expect(open.label == "2026-11-01T00:00:00Z to now (end excluded)")
        let offset = try ReportPeriod.resolve(
            period: "", since: "2026-11-01T02:00:00+02:00", until: "2026-11-02T00:00:00Z", now: 0)
        #expect(offset?.since == 1_793_491_200)
    }

    @Test func badPeriodsSayWhatIsExpected() {
        for (period, since, until, expected) in [
            ("2026-13", "", "", "period '2026-13' is not a month (YYYY-MM, e.g. 2026-11) or last-month"),
            ("november", "", "", "period 'november' is not a month (YYYY-MM, e.g. 2026-11) or last-month"),
            ("2026-11", "2026-11-01T00:00:00Z", "", "period '2026-11' and since/until: give one or the other"),
            ("", "yesterday", "", "since 'yesterday' is not an RFC 3339 time (e.g. 2026-11-01T00:00:00Z)"),
            (
                "", "2026-12-01T00:00:00Z", "2026-11-01T00:00:00Z",
                "since '2026-12-01T00:00:00Z' is not before until '2026-11-01T00:00:00Z'"
            ),
        ] {
            do {
                _ = try ReportPeriod.resolve(period: period, since: since, until: until, now: 0)
                Issue.record("'\(period)' '\(since)' '\(until)' was accepted")
            } catch {
                #expect(error.message == expected)
            }
        }
    }

    @Test func theReportStatesItsPeriodFirst() {
        var row = UsageReportTests.row(session: "ses_a", app: "A", limit: "100", used: "80")
        (row.periodSince, row.periodUntil, row.usedInPeriod) = (
            Self.november.sinceText, Self.november.untilText, "30"
        )
        let report = UsageReport(rows: [row], nearLimit: 80, generatedAt: 0, period: Self.november)
        let label = "Period: 2026-11-01T00:00:00Z to 2026-12-01T00:00:00Z (end excluded)."
        #expect(report.markdown.hasPrefix("# Remote session usage\n\n\(label)\n"))
        #expect(report.html.contains("<p class=\"period\">\(label)</p>"))
        #expect(
            report.csv.split(separator: "\r\n")[1].contains(",active,2026-11-01T00:00:00Z,2026-12-01T00:00:00Z,30,"))
        #expect(UsageReport(rows: [], nearLimit: 80, generatedAt: 0).markdown.contains("Period: none"))
    }
}
