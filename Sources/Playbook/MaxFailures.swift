/// How many items of a step may fail before the step is stopped (`max_failures`).
public enum MaxFailures: Sendable, Hashable, CustomStringConvertible {
    /// At most this many failed items.
    case count(Int)
    /// At most this percentage (0...100) of the step's items.
    case percent(Double)

    /// Parses `10` or `"5%"`; `nil` if invalid (negative, over 100%, not a number).
    public init?(text: String) {
        if text.hasSuffix("%") {
            guard let p = Double(text.dropLast()), p >= 0, p <= 100 else { return nil }
            self = .percent(p)
        } else {
            guard let n = Int(text), n >= 0 else { return nil }
            self = .count(n)
        }
    }

    /// Whether `failures` failed items out of `total` still fit the budget.
    public func allows(failures: Int, total: Int) -> Bool {
        switch self {
        case .count(let n): return failures <= n
        case .percent(let p): return Double(failures) <= Double(total) * p / 100
        }
    }

    /// `10` or `5%`.
    public var description: String {
        switch self {
        case .count(let n): return String(n)
        case .percent(let p): return (p == p.rounded() ? String(Int(p)) : String(p)) + "%"
        }
    }
}
