import Foundation

/// RFC 3339 UTC timestamps as the wire carries them (`2026-11-30T03:16:48Z`): expiries, periods, session
/// times, read and written the same way by the core and its clients.
public enum RFC3339 {
    /// `seconds` since the epoch, UTC, whole seconds.
    public static func format(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// `date`, UTC, whole seconds (a fraction is dropped).
    public static func format(_ date: Date) -> String { format(Int64(date.timeIntervalSince1970.rounded(.down))) }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`; fractions are dropped.
    public static func parse(_ text: String) -> Int64? {
        date(text).map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)` as a `Date`, fractions kept.
    public static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
