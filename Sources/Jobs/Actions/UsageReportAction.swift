import Foundation
import Runner

/// `jobs.usage-report`: the last step of the usage report. Reads the rows the `jobs.session-usage` step
/// wrote to `<output_dir>/usage.csv` and writes the formats asked for beside it: `usage.json`, `usage.md`
/// and a self-contained `usage.html`, with the summaries per app and per wallet and the grants at or over
/// `nearLimit` percent. When `csv` is not among the formats, `usage.csv` is removed once the others exist.
public struct UsageReportAction: Action {
    /// The report's settings.
    public struct Configuration: Sendable {
        public var outputDirectory: String
        /// Any of csv, json, md, html.
        public var formats: [String]
        /// Grants at or over this percentage of their limit are listed as near the limit.
        public var nearLimit: Int
        /// The job's period settings: the report states the period its rows carry (the one the sessions
        /// step fixed), or with no rows, these resolved when it runs.
        public var period: UsageSessionsAction.PeriodSettings
        public var now: @Sendable () -> Int64

        /// Creates a configuration.
        public init(
            outputDirectory: String, formats: [String], nearLimit: Int = 80,
            period: UsageSessionsAction.PeriodSettings = .init(),
            now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        ) {
            self.outputDirectory = outputDirectory
            self.formats = formats
            self.nearLimit = nearLimit
            self.period = period
            self.now = now
        }
    }

    public let configuration: Configuration

    /// An action for `configuration`.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    public var name: String { "jobs.usage-report" }
    public var isSideEffecting: Bool { true }

    public func run(_ item: WorkItem, context: ActionContext) async throws -> ActionResult {
        let rowsPath = SessionUsageAction.rowsPath(in: configuration.outputDirectory)
        let records: [[String: String]]
        do {
            records = try CSVFile.read(path: rowsPath)
        } catch {
            throw ActionError.permanent("cannot read the report's rows \(rowsPath): \(error)")
        }
        let rows = records.map { record in UsageReport.Row(values: UsageReport.header.map { record[$0] ?? "" }) }
        let period: ReportPeriod?
        if let first = rows.first {
            period = ReportPeriod(sinceText: first.periodSince, untilText: first.periodUntil)
        } else {
            do { period = try configuration.period.resolve(now: configuration.now()) } catch {
                throw ActionError.permanent(error.message)
            }
        }
        let report = UsageReport(
            rows: rows, nearLimit: configuration.nearLimit, generatedAt: configuration.now(), period: period)
        var written: [String] = []
        for format in configuration.formats {
            let path = URL(fileURLWithPath: configuration.outputDirectory).appendingPathComponent("usage.\(format)")
                .path
            switch format {
            case "csv":
                written.append(path)
                continue
            case "json": try CSVFile.writeText(path: path, report.json)
            case "md": try CSVFile.writeText(path: path, report.markdown)
            case "html": try CSVFile.writeText(path: path, report.html)
            default: throw ActionError.permanent("unknown report format '\(format)' (use csv, json, md, html)")
            }
            written.append(path)
        }
        if !configuration.formats.contains("csv") { try? FileManager.default.removeItem(atPath: rowsPath) }
        return ActionResult(outputs: [
            "rows": String(rows.count), "sessions": String(Set(rows.map(\.sessionId)).count),
            "files": written.joined(separator: ","),
        ])
    }

    /// Written again on resume: the files are made whole from the rows each time.
    public func probe(_ item: WorkItem, context: ActionContext) async throws -> ProbeOutcome { .notDone }
}
