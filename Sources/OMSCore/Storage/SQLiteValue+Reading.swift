import SQLiteKit

extension SQLiteValue {
    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
    var int: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
    var bytes: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }
    init(_ text: String?) { self = text.map { .text($0) } ?? .null }
    init(_ int: Int64?) { self = int.map { .integer($0) } ?? .null }
}
