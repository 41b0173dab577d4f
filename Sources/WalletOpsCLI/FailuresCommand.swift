import Foundation
import Runner
import TextFormats

/// `walletops failures RUN`: the failed and rejected items of a run.
struct FailuresCommand: Command {
    static let format = OptionSpec.option(
        "format", help: "Output format.", type: .choice(["table", "csv", "json"]), default: "table")

    let configuration = CommandConfiguration(
        name: "failures", abstract: "List the failed and rejected items of a run.",
        options: [CommonOptions.home, CommonOptions.store, Self.format], arguments: [StatusCommand.run])

    func run(_ arguments: ParsedArguments, context: Context) async throws -> Int32 {
        let home = RunHome(arguments, context: context)
        let store = try home.openExistingStore()
        let record = try await home.run(arguments.argument(StatusCommand.run)!, in: store)
        let (items, _) = try await store.items(runID: record.id, states: [.failed, .rejected], limit: Int(Int32.max))
        let out = context.standardOutput
        switch arguments.value(Self.format) {
        case "json":
            let list = JSONField.array(
                items.map { item in
                    .object([
                        ("step", .string(item.step)), ("key", .string(item.key)),
                        ("state", .string(item.state.rawValue)),
                        ("attempts", .int(item.attempts)), ("class", item.errorClass.map { .string($0) } ?? .null),
                        ("message", item.message.map { .string($0) } ?? .null),
                    ])
                })
            out.writeLine(list.text(.init(secrets: [String]())))
        case "csv":
            out.write("step,key,state,attempts,class,message\r\n")
            for item in items {
                out.write(
                    CSVField.record([
                        item.step, item.key, item.state.rawValue, String(item.attempts), item.errorClass ?? "",
                        item.message ?? "",
                    ]) + "\r\n")
            }
        default:
            var rows = [["step", "key", "state", "attempts", "class", "message"]]
            for item in items {
                rows.append([
                    item.step, item.key, item.state.rawValue, String(item.attempts), item.errorClass ?? "",
                    item.message ?? "",
                ])
            }
            out.write(TextTable.render(rows))
            out.writeLine("\(items.count) failed or rejected item\(items.count == 1 ? "" : "s") in run \(record.id)")
        }
        return ExitCode.success.rawValue
    }
}
