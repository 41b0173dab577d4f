import Foundation

/// A 5-field cron schedule (`minute hour day-of-month month day-of-week`), evaluated in UTC.
///
/// Fields accept `*`, numbers, ranges `a-b`, lists `a,b`, steps `*/n` and `a-b/n`, month names
/// `jan`-`dec` and weekday names `sun`-`sat` (0 and 7 are Sunday). As in Vixie cron, when both day
/// fields are restricted a day matches if either matches. `@hourly`, `@daily`, `@weekly`, `@monthly`
/// and `@yearly` are accepted. See <https://man7.org/linux/man-pages/man5/crontab.5.html>.
public struct CronExpression: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written.
    public let source: String
    let minutes: Set<Int>
    let hours: Set<Int>
    let days: Set<Int>
    let months: Set<Int>
    let weekdays: Set<Int>
    let daysRestricted: Bool
    let weekdaysRestricted: Bool

    /// The expression as written.
    public var description: String { source }

    /// A cron expression that does not parse, with the character offset of the bad field.
    public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public var message: String
        /// The 0-based character offset in the expression.
        public var offset: Int
        public var description: String { message }
    }

    private static let macros = [
        "@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0",
        "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
    ]
    private static let monthNames = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    private static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Parses an expression.
    ///
    /// - Throws: ``SyntaxError`` naming the field and the offset where it starts.
    public init(parsing source: String) throws(SyntaxError) {
        self.source = source
        let trimmed = source.trimmingCharacters(in: .whitespaces)
        var text = source
        if trimmed.hasPrefix("@") {
            guard let expanded = Self.macros[trimmed.lowercased()] else {
                throw SyntaxError(
                    message: "unknown cron macro '\(trimmed)'; use one of @hourly @daily @weekly @monthly @yearly",
                    offset: 0)
            }
            text = expanded
        }
        // Split into fields, keeping each field's offset for error columns.
        var fields: [(String, Int)] = []
        var current = ""
        var start = 0
        for (i, c) in text.enumerated() {
            if c == " " || c == "\t" {
                if !current.isEmpty { fields.append((current, start)) }
                current = ""
            } else {
                if current.isEmpty { start = i }
                current.append(c)
            }
        }
        if !current.isEmpty { fields.append((current, start)) }
        guard fields.count == 5 else {
            throw SyntaxError(
                message:
                    "cron expression '\(source)' has \(fields.count) field\(fields.count == 1 ? "" : "s"); expected 5 (minute hour day-of-month month day-of-week)",
                offset: 0)
        }
        let names = ["minute", "hour", "day-of-month", "month", "day-of-week"]
        let ranges = [0...59, 0...23, 1...31, 1...12, 0...7]
        let aliases: [[String]] = [[], [], [], Self.monthNames, Self.dayNames]
        var sets: [Set<Int>] = []
        for index in 0..<5 {
            let (field, offset) = fields[index]
            sets.append(
                try Self.parseField(
                    field, name: names[index], range: ranges[index], aliases: aliases[index],
                    aliasBase: index == 3 ? 1 : 0, offset: offset))
        }
        minutes = sets[0]
        hours = sets[1]
        days = sets[2]
        months = sets[3]
        var dow = sets[4]
        if dow.remove(7) != nil { dow.insert(0) }
        weekdays = dow
        daysRestricted = !fields[2].0.hasPrefix("*")
        weekdaysRestricted = !fields[4].0.hasPrefix("*")
    }

    private static func parseField(
        _ field: String, name: String, range: ClosedRange<Int>, aliases: [String], aliasBase: Int, offset: Int
    ) throws(SyntaxError) -> Set<Int> {
        var result = Set<Int>()
        var partOffset = offset
        for part in field.split(separator: ",", omittingEmptySubsequences: false) {
            func fail(_ why: String) -> SyntaxError {
                SyntaxError(message: "bad cron \(name) field '\(field)': \(why)", offset: partOffset)
            }
            func value(_ text: Substring) throws(SyntaxError) -> Int {
                if let i = aliases.firstIndex(of: text.lowercased()) { return i + aliasBase }
                guard let n = Int(text), text.allSatisfy(\.isNumber) else { throw fail("'\(text)' is not a number") }
                guard range.contains(n) else {
                    throw fail("\(n) is out of range \(range.lowerBound)-\(range.upperBound)")
                }
                return n
            }
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2, !pieces[0].isEmpty else { throw fail("expected a value, a range or '*'") }
            var step = 1
            if pieces.count == 2 {
                guard let s = Int(pieces[1]), s > 0 else { throw fail("step '\(pieces[1])' must be a positive number") }
                step = s
            }
            let low: Int
            var high: Int
            if pieces[0] == "*" {
                (low, high) = (range.lowerBound, range.upperBound)
                if name == "day-of-week" { high = 6 }
            } else {
                let bounds = pieces[0].split(separator: "-", omittingEmptySubsequences: false)
                guard bounds.count <= 2 else { throw fail("expected a range like 1-5") }
                low = try value(bounds[0])
                high = bounds.count == 2 ? try value(bounds[1]) : (pieces.count == 2 ? range.upperBound : low)
                guard low <= high else { throw fail("range \(low)-\(high) is backwards") }
            }
            result.formUnion(stride(from: low, through: high, by: step))
            partOffset += part.count + 1
        }
        return result
    }

    /// The first fire time strictly after `date` (to the minute), or `nil` if none within 28 years
    /// (only possible for dates such as February 30).
    public func nextFireTime(after date: Date) -> Date? {
        let startMinute = Int((date.timeIntervalSince1970 / 60).rounded(.down)) + 1
        var day = Self.floorDiv(startMinute, 1440)
        var firstMinuteOfDay = startMinute - day * 1440
        for _ in 0..<(366 * 28) {
            let (_, month, dayOfMonth) = Self.civil(fromDays: day)
            let weekday = ((day % 7) + 11) % 7  // 1970-01-01 was a Thursday (4)
            if months.contains(month), matchesDay(dayOfMonth, weekday) {
                for minuteOfDay in firstMinuteOfDay..<1440
                where hours.contains(minuteOfDay / 60) && minutes.contains(minuteOfDay % 60) {
                    return Date(timeIntervalSince1970: Double((day * 1440 + minuteOfDay) * 60))
                }
            }
            day += 1
            firstMinuteOfDay = 0
        }
        return nil
    }

    /// Whether the schedule fires at some minute in the interval `(start, end]`.
    public func isDue(after start: Date, through end: Date) -> Bool {
        guard let next = nextFireTime(after: start) else { return false }
        return next <= end
    }

    /// Whether `date` (to the minute) is a fire time.
    public func matches(_ date: Date) -> Bool {
        let minute = Int((date.timeIntervalSince1970 / 60).rounded(.down))
        let day = Self.floorDiv(minute, 1440)
        let minuteOfDay = minute - day * 1440
        let (_, month, dayOfMonth) = Self.civil(fromDays: day)
        let weekday = ((day % 7) + 11) % 7
        return months.contains(month) && matchesDay(dayOfMonth, weekday) && hours.contains(minuteOfDay / 60)
            && minutes.contains(minuteOfDay % 60)
    }

    private func matchesDay(_ dayOfMonth: Int, _ weekday: Int) -> Bool {
        switch (daysRestricted, weekdaysRestricted) {
        case (true, true): return days.contains(dayOfMonth) || weekdays.contains(weekday)
        case (true, false): return days.contains(dayOfMonth)
        case (false, true): return weekdays.contains(weekday)
        case (false, false): return true
        }
    }

    private static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's civil_from_days).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
