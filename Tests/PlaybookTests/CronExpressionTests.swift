import Foundation
import Testing

@testable import Playbook

@Suite struct CronExpressionTests {
    /// A UTC date from its parts, computed with Foundation's calendar (independent of the code under test).
    static func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: y, month: mo, day: d, hour: h, minute: mi, second: s))!
    }

    @Test func nextFireTimes() throws {
        let cases: [(String, Date, Date)] = [
            ("*/15 * * * *", Self.utc(2026, 1, 1, 0, 7, 30), Self.utc(2026, 1, 1, 0, 15)),
            ("*/15 * * * *", Self.utc(2026, 1, 1, 0, 15), Self.utc(2026, 1, 1, 0, 30)),
            ("0 3 * * *", Self.utc(2026, 1, 1, 3), Self.utc(2026, 1, 2, 3)),
            ("0 3 * * *", Self.utc(2026, 1, 1, 2, 59, 59), Self.utc(2026, 1, 1, 3)),
            // 2026-01-02 is a Friday; the next weekday is Monday the 5th.
            ("30 2 * * mon-fri", Self.utc(2026, 1, 2, 3), Self.utc(2026, 1, 5, 2, 30)),
            ("0 0 29 2 *", Self.utc(2026, 3, 1), Self.utc(2028, 2, 29)),
            // Both day fields restricted: either matches (Monday the 5th comes before the 1st of February).
            ("0 12 1 * 1", Self.utc(2026, 1, 1, 13), Self.utc(2026, 1, 5, 12)),
            ("@monthly", Self.utc(2026, 1, 15), Self.utc(2026, 2, 1)),
            ("59 23 31 12 *", Self.utc(2026, 12, 31, 23, 59), Self.utc(2027, 12, 31, 23, 59)),
            ("0 0 * * 7", Self.utc(2026, 1, 1), Self.utc(2026, 1, 4)),
            ("0 0 * * sun", Self.utc(2026, 1, 1), Self.utc(2026, 1, 4)),
            ("5,10-12/2 8 * jan,mar *", Self.utc(2026, 1, 31, 8, 12), Self.utc(2026, 3, 1, 8, 5)),
            ("0 9-17/4 * * *", Self.utc(2026, 6, 1, 13, 1), Self.utc(2026, 6, 1, 17)),
            ("0 0 1 1 *", Self.utc(1999, 12, 31, 23, 59), Self.utc(2000, 1, 1)),
        ]
        for (expression, after, expected) in cases {
            let cron = try CronExpression(parsing: expression)
            #expect(cron.nextFireTime(after: after) == expected, "\(expression) after \(after)")
            #expect(cron.matches(expected), "\(expression) matches \(expected)")
        }
        #expect(cases.count == 14)
    }

    @Test func impossibleDateNeverFires() throws {
        #expect(try CronExpression(parsing: "0 0 31 2 *").nextFireTime(after: Self.utc(2026, 1, 1)) == nil)
    }

    @Test func dueWindowIsExclusiveAtTheStartAndInclusiveAtTheEnd() throws {
        let cron = try CronExpression(parsing: "0 3 * * *")
        #expect(cron.isDue(after: Self.utc(2026, 1, 1, 2, 59), through: Self.utc(2026, 1, 1, 3)))
        #expect(!cron.isDue(after: Self.utc(2026, 1, 1, 3), through: Self.utc(2026, 1, 1, 3, 30)))
        #expect(cron.isDue(after: Self.utc(2026, 1, 1, 3), through: Self.utc(2026, 1, 2, 3)))
        #expect(!cron.isDue(after: Self.utc(2026, 1, 1, 3, 1), through: Self.utc(2026, 1, 2, 2, 59)))
    }

    @Test func syntaxErrorsNameTheFieldAndOffset() {
        let cases: [(String, String, Int)] = [
            (
                "0 3 * *",
                "cron expression '0 3 * *' has 4 fields; expected 5 (minute hour day-of-month month day-of-week)", 0
            ),
            ("60 * * * *", "bad cron minute field '60': 60 is out of range 0-59", 0),
            ("0 0 0 * *", "bad cron day-of-month field '0': 0 is out of range 1-31", 4),
            ("*/0 * * * *", "bad cron minute field '*/0': step '0' must be a positive number", 0),
            ("0 5-1 * * *", "bad cron hour field '5-1': range 5-1 is backwards", 2),
            ("0 0 * foo *", "bad cron month field 'foo': 'foo' is not a number", 6),
            ("0 0 * * 1,,2", "bad cron day-of-week field '1,,2': expected a value, a range or '*'", 10),
            ("@every 5m", "unknown cron macro '@every 5m'; use one of @hourly @daily @weekly @monthly @yearly", 0),
        ]
        for (expression, message, offset) in cases {
            #expect(throws: CronExpression.SyntaxError(message: message, offset: offset), "\(expression)") {
                try CronExpression(parsing: expression)
            }
        }
    }
}
