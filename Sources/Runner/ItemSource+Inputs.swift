import Foundation
import Playbook

/// Item sources over playbook inputs, streamed through Playbook's `InputReader` (one chunk of memory
/// however long the file).
///
/// Keys are the reader's stable keys (`row:<n>` for CSV data rows, `line:<n>` for JSON Lines, the file
/// name for directory entries). Positions are stable because a run refuses to resume when an input's
/// fingerprint changed (unless the changes are accepted).
extension ItemSource {
    /// The items of a declared input. The path template is rendered with `context` when the step starts
    /// (each resume re-reads the input from the beginning), a relative path read in `folder` (the run's);
    /// an unreadable input aborts the run.
    public static func input(
        _ declaration: InputDeclaration, context: TemplateContext, folder: URL? = nil, secretFields: Set<String> = [],
        count: Int? = nil
    ) -> ItemSource {
        ItemSource(count: count) {
            InputItemIterator(declaration, context: context, folder: folder, secretFields: secretFields)
        }
    }

    /// The elements of a list (a `for_each` template's value), keyed `index:<n>` (1-based).
    public static func values(_ list: [TemplateValue]) -> ItemSource {
        items(list.enumerated().map { WorkItem(key: "index:\($0 + 1)", fields: ItemFields.from($1)) })
    }

    /// The elements of a list made when the step starts from the outputs of the steps before it
    /// (`for_each: ${{ steps.select.outputs.grants }}`), keyed `index:<n>` like ``values(_:)``. The list is
    /// made again on resume from the same checkpointed outputs, so positions are stable; an error making it
    /// is the step's input error (the run aborts with its message).
    public static func values(afterSteps make: @escaping @Sendable (StepOutputs) throws -> [TemplateValue])
        -> ItemSource
    {
        ItemSource(afterSteps: { outputs in OutputValuesIterator { try make(outputs) } })
    }
}

/// The items of a list made on the first read.
private final class OutputValuesIterator: SynchronousItemIterator {
    private let make: () throws -> [TemplateValue]
    private var list: [TemplateValue]?
    private var index = 0

    init(_ make: @escaping () throws -> [TemplateValue]) { self.make = make }

    var count: Int? { list?.count }

    func nextItem() throws -> WorkItem? {
        if list == nil { list = try make() }
        guard let list, index < list.count else { return nil }
        defer { index += 1 }
        return WorkItem(key: "index:\(index + 1)", fields: ItemFields.from(list[index]))
    }
}

/// Flattens a template value into item fields: an object's members (strings as they are, other values
/// as JSON text), or any other value as the field `value`.
enum ItemFields {
    static func from(_ value: TemplateValue) -> [String: String] { value.textFields }
}

private final class InputItemIterator: SynchronousItemIterator {
    private let declaration: InputDeclaration
    private let context: TemplateContext
    private let folder: URL?
    private let secretFields: Set<String>
    private var reader: InputReader?

    init(_ declaration: InputDeclaration, context: TemplateContext, folder: URL?, secretFields: Set<String>) {
        self.declaration = declaration
        self.context = context
        self.folder = folder
        self.secretFields = secretFields
    }

    func nextItem() throws -> WorkItem? {
        if reader == nil { reader = try InputReader(declaration, context: context, folder: folder) }
        // Text fields straight from the reader: a CSV row's own dictionary, no template value between.
        guard let item = try reader!.nextTextItem() else { return nil }
        if let single = item.single {
            return WorkItem(key: item.key, field: single.name, value: single.value, secretFields: secretFields)
        }
        return WorkItem(key: item.key, fields: item.fields, secretFields: secretFields)
    }
}
