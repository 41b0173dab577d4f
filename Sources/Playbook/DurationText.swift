/// Durations as playbooks write them: a number and a unit, repeated (`500ms`, `30s`, `5m`, `1h30m`, `2d`).
public enum DurationText {
    /// Units from largest to smallest, in seconds.
    static let units: [(String, Double)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1), ("ms", 0.001)]

    /// Parses a duration such as `1h30m` or `1.5s`; `nil` if the text is not one.
    public static func parse(_ text: String) -> Duration? {
        let chars = Array(text)
        guard !chars.isEmpty else { return nil }
        var i = 0
        var total = 0.0
        while i < chars.count {
            var number = ""
            while i < chars.count, chars[i].isASCII, chars[i].isNumber || chars[i] == "." {
                number.append(chars[i])
                i += 1
            }
            var unit = ""
            while i < chars.count, chars[i].isASCII, chars[i].isLetter {
                unit.append(chars[i])
                i += 1
            }
            guard let value = Double(number), let scale = units.first(where: { $0.0 == unit })?.1 else { return nil }
            total += value * scale
        }
        guard total.isFinite, total < 1e12 else { return nil }
        return .milliseconds(Int64((total * 1000).rounded()))
    }

    /// Formats a duration in the same syntax (`1h30m`, `250ms`).
    public static func format(_ duration: Duration) -> String {
        var ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if ms == 0 { return "0s" }
        var out = ""
        for (unit, seconds) in units {
            let size = Int64(seconds * 1000)
            if ms >= size {
                out += "\(ms / size)\(unit)"
                ms %= size
            }
        }
        return out
    }
}
