import Foundation
import Testing

/// The JSON report a finished `walletops run` names on its `report: <home>/reports/N.md` line: the
/// first step's counts and its work counts (docs/engine.md "Work counts").
struct RunReportFile {
    /// The first step's entry (`succeeded`, `resumed`, `work`, ...).
    let step: [String: Any]
    /// The JSON file's path.
    let path: String

    /// The report of the run that printed `output`.
    init(of output: CLIResult) throws {
        let line = try #require(output.standardOutput.split(separator: "\n").first { $0.hasPrefix("report: ") })
        path = String(line.dropFirst("report: ".count).dropLast(".md".count)) + ".json"
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        step = try #require((report["steps"] as? [[String: Any]])?.first)
    }

    /// A count of the step (`succeeded`, `resumed`, `total`...); nil when absent.
    func count(_ name: String) -> Int? { step[name] as? Int }

    /// A work count of the step in that invocation (0 when the action did none of it).
    func work(_ measure: String) -> Int { (step["work"] as? [String: Any])?[measure] as? Int ?? 0 }
}
