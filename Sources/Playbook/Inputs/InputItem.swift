import Foundation

/// One item read from an input, with where it came from (for checkpoints and error messages).
public struct InputItem: Sendable, Hashable {
    /// The 1-based position among the input's items.
    public var index: Int
    /// The 1-based line where the item starts (CSV, JSONL); `nil` for directory entries.
    public var line: Int?
    /// A stable key for the item within its input: the row number, line number, or file name.
    public var key: String
    /// The item as templates see it.
    public var value: TemplateValue
}
