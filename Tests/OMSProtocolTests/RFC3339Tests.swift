import Foundation
import OMSProtocol
import Testing

/// The hand-written RFC 3339 reader against Foundation's ISO 8601 formatter, the reference it replaced.
@Suite struct RFC3339Tests {
    static func foundation(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    @Test func readsWhatItWritesAndWhatFoundationReads() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            // From 1901 to 2200: leap years, century rules and negative epochs included.
            let seconds = Int64.random(in: -2_177_452_800...7_258_118_400, using: &generator)
            let text = RFC3339.format(seconds)
            #expect(RFC3339.parse(text) == seconds, "\(text)")
            #expect(Self.foundation(text).map { Int64($0.timeIntervalSince1970) } == seconds, "\(text)")
        }
    }

    @Test func offsetsAndFractionsAsFoundationReadsThem() {
        for text in [
            "2026-11-30T03:16:48Z", "2026-11-30T03:16:48.250Z", "2026-11-30T05:16:48+02:00",
            "2026-11-30T01:16:48.5-02:00", "2000-02-29T00:00:00Z", "1970-01-01T00:00:00Z", "2099-12-31T23:59:59Z",
        ] {
            let ours = RFC3339.date(text)
            let reference = Self.foundation(text)
            #expect(ours != nil && reference != nil, "\(text)")
            if let ours, let reference {
                #expect(abs(ours.timeIntervalSince1970 - reference.timeIntervalSince1970) < 0.001, "\(text)")
            }
        }
        #expect(RFC3339.parse("2026-11-30T05:16:48+02:00") == RFC3339.parse("2026-11-30T03:16:48Z"))
    }

    @Test func refusesWhatIsNotATimestamp() {
        for text in [
            "", "2026-11-30", "2026-11-30T03:16:48", "2026-11-30 03:16:48Z", "2026-13-01T00:00:00Z",
            "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T03:60:00Z",
            "2026-11-30T03:16:48.Z", "2026-11-30T03:16:48Zjunk", "2026-11-30T03:16:48+0200", "yesterday",
        ] {
            #expect(RFC3339.parse(text) == nil, "\(text)")
        }
    }
}
