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
    /// (each resume re-reads the input from the beginning); an unreadable input aborts the run.
    public static func input(
        _ declaration: InputDeclaration, context: TemplateContext, secretFields: Set<String> = [], count: Int? = nil
    ) -> ItemSource {
        ItemSource(count: count) { InputItemIterator(declaration, context: context, secretFields: secretFields) }
    }

    /// The elements of a list (a `for_each` template's value), keyed `index:<n>` (1-based).
    public static func values(_ list: [TemplateValue]) -> ItemSource {
        items(list.enumerated().map { WorkItem(key: "index:\($0 + 1)", fields: ItemFields.from($1)) })
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
    private let secretFields: Set<String>
    private var reader: InputReader?

    init(_ declaration: InputDeclaration, context: TemplateContext, secretFields: Set<String>) {
        self.declaration = declaration
        self.context = context
        self.secretFields = secretFields
    }

    func nextItem() throws -> WorkItem? {
        if reader == nil { reader = try InputReader(declaration, context: context) }
        // Text fields straight from the reader: a CSV row's own dictionary, no template value between.
        guard let item = try reader!.nextTextItem() else { return nil }
        if let single = item.single {
            return WorkItem(key: item.key, field: single.name, value: single.value, secretFields: secretFields)
        }
        return WorkItem(key: item.key, fields: item.fields, secretFields: secretFields)
    }
}
