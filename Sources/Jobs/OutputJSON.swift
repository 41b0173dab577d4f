import Foundation

/// The JSON text of a step output that holds a list (the selected grants, the listed sessions, a
/// session's report rows): keys sorted, slashes unescaped, so the same list is the same text on resume.
enum OutputJSON {
    static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
