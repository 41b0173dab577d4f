import Foundation
import Playbook
import Runner

/// The engine with checkpoints: N `noop` items through `Engine.run` with a `RunStore` in a temporary
/// folder (WAL, synchronous=NORMAL, one flush per 1,000 outcomes or 200 ms), beside a Python peer
/// (asyncio + sqlite3) that checkpoints the same way. Peer figures come from a file written by
/// scripts/bench.sh ("items<TAB>items_per_s<TAB>peak_rss_mib<TAB>cpu_s" lines).
enum EngineBench {
    struct Figure {
        var items: Int
        var itemsPerSecond: Double
        var peakRSS: Double
        /// User + system CPU seconds: the machine is shared, so wall-clock rates swing with its load.
        var cpuSeconds: Double
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Runs one measurement of `count` items in a fresh store.
    static func measure(_ count: Int) async throws -> Figure {
        try await inTemporaryFolder { folder in
            try await runNoop(
                "bench-\(count)", items: .generated(count: count) { WorkItem(key: "item-\($0)") }, count: count,
                storeIn: folder)
        }
    }

    /// `count` no-op items from `items` through `Engine.run`, eight in flight, with a fresh `RunStore` in
    /// `folder`: the run's rate, CPU and the peak RSS after it. Throws unless every item succeeded.
    static func runNoop(_ name: String, items: ItemSource, count: Int, storeIn folder: URL) async throws -> Figure {
        let store = try RunStore(path: folder.appendingPathComponent("runs.sqlite").path)
        let plan = RunPlan(
            name: name, steps: [StepPlan(id: "noop", items: items, action: NoopAction(), concurrency: 8)],
            concurrency: 8)
        let start = Measure.now()
        let cpuStart = cpuSeconds()
        let summary = try await Engine.run(
            plan: plan, store: store, identity: RunIdentity(playbookName: plan.name, playbookHash: "bench"),
            options: Engine.Options(immediateActions: BenchTuning.current.immediateActions))
        let seconds = (Measure.now() - start) / 1e6
        guard summary.succeeded == count else {
            throw BenchError("\(name): \(summary.succeeded) of \(count) items succeeded")
        }
        return Figure(
            items: count, itemsPerSecond: Double(count) / seconds, peakRSS: Measure.peakRSSMiB(),
            cpuSeconds: cpuSeconds() - cpuStart)
    }

    /// `body` with a fresh temporary folder, removed afterwards.
    static func inTemporaryFolder<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wo-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    /// `--items N`: one measurement of N items (for profiling), instead of the table's two sizes.
    static func counts(_ arguments: [String]) -> [Int] {
        guard let index = arguments.firstIndex(of: "--items"), index + 1 < arguments.count,
            let count = Int(arguments[index + 1]), count > 0
        else { return [100_000, 1_000_000] }
        return [count]
    }

    /// The command line's path without the command line: `count` no-op items streamed from a CSV input
    /// (`id,address` rows, as `walletops run` reads a `for_each` input), after the counting pass the
    /// command line makes for progress totals. Returns the run and the counting pass's seconds.
    static func measureCSV(_ count: Int) async throws -> (run: Figure, countSeconds: Double) {
        try await inTemporaryFolder { folder in try await measureCSV(count, in: folder) }
    }

    private static func measureCSV(_ count: Int, in folder: URL) async throws -> (run: Figure, countSeconds: Double) {
        let csv = folder.appendingPathComponent("rows.csv")
        // Written in pieces so the file's text never counts in the peak RSS.
        _ = FileManager.default.createFile(atPath: csv.path, contents: nil)
        let file = try FileHandle(forWritingTo: csv)
        var text = "id,address\n"
        for index in 0..<count {
            text += "\(index),addr-\(index)\n"
            if text.utf8.count >= 60_000 || index == count - 1 {
                try file.write(contentsOf: Data(text.utf8))
                text.removeAll(keepingCapacity: true)
            }
        }
        try file.close()
        let yaml = folder.appendingPathComponent("csv.yaml")
        try Data(
            """
            name: bench-csv
            inputs:
              rows: {csv: "\(csv.path)", columns: [id, address]}
            steps:
              - {id: noop, action: noop, for_each: rows}

            """.utf8
        ).write(to: yaml)
        let playbook = try Playbook.load(contentsOf: yaml, options: .init(knownActions: ["noop"]))
        guard let declaration = playbook.inputs["rows"] else { throw BenchError("csv bench: no input") }
        let context = TemplateContext()
        let countStart = Measure.now()
        let counted = try InputReader(declaration, context: context).countRemaining()
        let countSeconds = (Measure.now() - countStart) / 1e6
        let run = try await runNoop(
            "bench-csv-\(count)", items: .input(declaration, context: context, count: counted), count: count,
            storeIn: folder)
        return (run, countSeconds)
    }

    /// Peer figures by item count: items/s, peak RSS MiB, CPU seconds.
    static func readPeer(_ arguments: [String]) -> [Int: (Double, Double, Double)] {
        guard let index = arguments.firstIndex(of: "--peer"), index + 1 < arguments.count,
            let text = try? String(contentsOfFile: arguments[index + 1], encoding: .utf8)
        else { return [:] }
        var out: [Int: (Double, Double, Double)] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t")
            if parts.count == 4, let items = Int(parts[0]), let rate = Double(parts[1]), let rss = Double(parts[2]),
                let cpu = Double(parts[3])
            {
                out[items] = (rate, rss, cpu)
            }
        }
        return out
    }

    /// The table: 100,000 then 1,000,000 items (peak RSS is the process high-water mark, so the
    /// smaller run goes first).
    static func run(peer: [Int: (Double, Double, Double)], counts: [Int] = [100_000, 1_000_000]) async throws -> String
    {
        var figures: [Figure] = []
        for count in counts { figures.append(try await measure(count)) }
        var table = Table(header: [
            "case", "items", "items/s", "CPU s", "peak RSS MiB", "peer items/s", "peer CPU s", "peer RSS MiB", "ratio",
            "goal",
        ])
        let baseRSS = figures[0].peakRSS
        for figure in figures {
            let peerFigure = peer[figure.items]
            let ratio = peerFigure.map { figure.itemsPerSecond / $0.0 }
            var goals: [String] = []
            goals.append(figure.itemsPerSecond >= 200_000 ? "rate ok" : "rate LOW")
            if let ratio { goals.append(ratio >= 5 ? ">=5x ok" : "<5x") }
            if figure.items == 1_000_000 {
                goals.append(figure.peakRSS <= baseRSS * 1.2 ? "RSS flat ok" : "RSS grows")
            }
            table.add([
                "noop+checkpoints", String(figure.items), format(figure.itemsPerSecond, digits: 0),
                format(figure.cpuSeconds, digits: 2), format(figure.peakRSS, digits: 1),
                peerFigure.map { format($0.0, digits: 0) } ?? "-", peerFigure.map { format($0.2, digits: 2) } ?? "-",
                peerFigure.map { format($0.1, digits: 1) } ?? "-", ratio.map { format($0) + "x" } ?? "-",
                goals.joined(separator: ", "),
            ])
        }
        if counts.contains(1_000_000) {
            let (csv, countSeconds) = try await measureCSV(1_000_000)
            table.add([
                "noop+checkpoints, CSV input", String(csv.items), format(csv.itemsPerSecond, digits: 0),
                format(csv.cpuSeconds, digits: 2), format(csv.peakRSS, digits: 1), "-", "-", "-", "-",
                "counting pass " + format(countSeconds, digits: 2) + " s",
            ])
        }
        return table.render()
            + "\n\ngoal: >= 200,000 items/s, >= 5x the peer, peak RSS at 1M within 20% of 100k"
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
