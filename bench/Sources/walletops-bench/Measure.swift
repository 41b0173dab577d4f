import Foundation

/// Times an operation: the fastest per-operation time over many short rounds, after a warm-up.
/// On a shared machine other work only ever adds time, so the fastest round is the least disturbed one;
/// the C floor is measured the same way, so their ratio compares like with like.
enum Measure {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3
    }

    /// Median microseconds per call of `body` over `rounds` rounds of `iterations` calls.
    static func microseconds(iterations: Int, rounds: Int = 15, _ body: () throws -> Void) rethrows -> Double {
        for _ in 0..<(iterations / 10 + 1) { try body() }
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = now()
            for _ in 0..<iterations { try body() }
            samples.append((now() - start) / Double(iterations))
        }
        return samples.min() ?? 0
    }

    /// Peak resident memory of this process so far, in MiB (from /proc/self/status VmHWM).
    static func peakRSSMiB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kb / 1024
        }
        return 0
    }
}

/// A plain-text table with aligned columns.
struct Table {
    var header: [String]
    var rows: [[String]] = []

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                i == 0
                    ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "  ")
        }
        var out = [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        out += rows.map(line)
        return out.joined(separator: "\n")
    }
}

func format(_ value: Double, digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
