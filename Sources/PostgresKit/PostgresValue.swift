/// A statement parameter, sent in PostgreSQL's text format (the server casts it to the column's type).
public enum PostgresValue: Sendable, Equatable {
    case null
    case text(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    /// Sent as `bytea` hex text (`\x0a1b...`).
    case bytes([UInt8])

    /// The text libpq sends, nil for SQL NULL.
    var text: String? {
        switch self {
        case .null: return nil
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .bool(let value): return value ? "t" : "f"
        case .bytes(let bytes):
            let digits = Array("0123456789abcdef".utf8)
            var out: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
            out.reserveCapacity(2 + 2 * bytes.count)
            for byte in bytes {
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0f)])
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}

extension PostgresValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

/// The rows a statement returned, as text (PostgreSQL's text output of each column), NULL as nil.
public struct PostgresRows: Sendable, Equatable {
    /// The column names, in order.
    public var columns: [String]
    /// The rows, each with one value per column.
    public var rows: [[String?]]
    /// The rows an INSERT, UPDATE or DELETE touched (`PQcmdTuples`), 0 for other statements.
    public var affected: Int

    /// The first column of the first row, nil when there is none or it is NULL.
    public var scalar: String? { rows.first?.first ?? nil }

    /// The first column of the first row as an integer.
    public var scalarInt: Int64? { scalar.flatMap { Int64($0) } }
}
