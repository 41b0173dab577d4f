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
        parts(text).map { $0.seconds }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)` as a `Date`, fractions kept.
    public static func date(_ text: String) -> Date? {
        parts(text).map { Date(timeIntervalSince1970: TimeInterval($0.seconds) + $0.fraction) }
    }

    /// The whole seconds since the epoch and the fraction of a timestamp, read by hand: a request signer
    /// checks its session's expiry on every request, and a date formatter costs far more than the check.
    static func parts(_ text: String) -> (seconds: Int64, fraction: Double)? {
        var text = text
        return text.withUTF8 { parts(bytes: $0) }
    }

    private static func parts(bytes: UnsafeBufferPointer<UInt8>) -> (seconds: Int64, fraction: Double)? {
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let digit = Int(bytes[index]) - 0x30
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
                index += 1
            }
            return value
        }
        /// Consumes `character` (or its other case `alternative`) when it comes next; no array per call.
        func expect(_ character: UInt8, or alternative: UInt8? = nil) -> Bool {
            guard index < bytes.count, bytes[index] == character || bytes[index] == alternative else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
            expect(0x54, or: 0x74), let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 60
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if expect(0x5A, or: 0x7A) {
            offset = 0
        } else if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
            let sign = bytes[index] == 0x2D ? -1 : 1
            index += 1
            guard let hours = number(2), expect(0x3A), let minutes = number(2), hours < 24, minutes < 60 else {
                return nil
            }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
        return (seconds, fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date, proleptic Gregorian (the civil-from-days inverse).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
