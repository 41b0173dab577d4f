import Foundation
import OMSProtocol
import Playbook

/// The period a usage report covers: `since <= executed at < until`, Unix seconds, UTC. Made from the
/// job's `period` (`2026-11`, `last-month`) or `since`/`until` (RFC 3339, either may be open).
public struct ReportPeriod: Sendable, Equatable {
    /// Inclusive start; nil: from the beginning.
    public var since: Int64?
    /// Exclusive end; nil: up to now.
    public var until: Int64?

    /// A period of `since` and `until`.
    public init(since: Int64?, until: Int64?) {
        self.since = since
        self.until = until
    }

    /// The period the job's settings name, resolved against `now` (for `last-month`); nil when all are
    /// empty (a report of cumulative figures only).
    ///
    /// - Throws: ``JobsError`` (`invalidInput`) naming the setting and the expected forms.
    public static func resolve(period: String, since: String, until: String, now: Int64) throws(JobsError)
        -> ReportPeriod?
    {
        let period = period.trimmingCharacters(in: .whitespaces)
        if !period.isEmpty {
            guard since.isEmpty, until.isEmpty else {
                throw JobsError(.invalidInput, "period '\(period)' and since/until: give one or the other")
            }
            if period == "last-month" {
                let (year, month) = Self.yearMonth(of: now)
                return month == 1 ? Self.month(year - 1, 12) : Self.month(year, month - 1)
            }
            let parts = period.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]),
                let month = Int(parts[1]), (1970...9999).contains(year), (1...12).contains(month)
            else {
                throw JobsError(
                    .invalidInput, "period '\(period)' is not a month (YYYY-MM, e.g. 2026-11) or last-month")
            }
            return Self.month(year, month)
        }
        guard !since.isEmpty || !until.isEmpty else { return nil }
        func time(_ text: String, _ name: String) throws(JobsError) -> Int64? {
            guard !text.isEmpty else { return nil }
            guard let seconds = RFC3339.parse(text) else {
                throw JobsError(
                    .invalidInput, "\(name) '\(text)' is not an RFC 3339 time (e.g. 2026-11-01T00:00:00Z)")
            }
            return seconds
        }
        let resolved = ReportPeriod(since: try time(since, "since"), until: try time(until, "until"))
        if let start = resolved.since, let end = resolved.until, start >= end {
            throw JobsError(.invalidInput, "since '\(since)' is not before until '\(until)'")
        }
        return resolved
    }

    /// The calendar month `month` of `year`, UTC.
    static func month(_ year: Int, _ month: Int) -> ReportPeriod {
        let next = month == 12 ? (year + 1, 1) : (year, month + 1)
        return ReportPeriod(since: Self.start(year, month), until: Self.start(next.0, next.1))
    }

    /// 00:00:00 UTC on the first of `month` (report months are UTC months).
    static func start(_ year: Int, _ month: Int) -> Int64 {
        let date =
            DateFormat.utc.date(from: DateComponents(year: year, month: month, day: 1))
            ?? Date(timeIntervalSince1970: 0)
        return Int64(date.timeIntervalSince1970)
    }

    static func yearMonth(of seconds: Int64) -> (Int, Int) {
        let parts = DateFormat.utc.dateComponents(
            [.year, .month], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return (parts.year ?? 1970, parts.month ?? 1)
    }

    /// `since` as RFC 3339, "" when open.
    public var sinceText: String { since.map(RFC3339.format) ?? "" }
    /// `until` as RFC 3339, "" when open.
    public var untilText: String { until.map(RFC3339.format) ?? "" }

    /// How the report states it: `2026-11-01T00:00:00Z to 2026-12-01T00:00:00Z (until excluded)`.
    public var label: String {
        "\(since.map(RFC3339.format) ?? "the beginning") to \(until.map(RFC3339.format) ?? "now") (end excluded)"
    }

    /// The period the sessions step recorded in its outputs (`period_since`, `period_until`); nil when
    /// both are empty.
    public init?(sinceText: String, untilText: String) {
        guard !sinceText.isEmpty || !untilText.isEmpty else { return nil }
        self.init(since: RFC3339.parse(sinceText), until: RFC3339.parse(untilText))
    }
}
