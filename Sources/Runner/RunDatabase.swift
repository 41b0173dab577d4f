/// A value bound to or read from a run-store statement.
///
/// PostgreSQL answers in text, so reads are lenient: `int64` and `double` parse a `.text` value too.
public enum StoreValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    var int64: Int64? {
        switch self {
        case .integer(let value): return value
        case .text(let text): return Int64(text)
        default: return nil
        }
    }
    var int: Int { int64.map { Int($0) } ?? 0 }
    var double: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        case .text(let text): return Double(text)
        case .null: return nil
        }
    }
    var string: String? { if case .text(let value) = self { return value } else { return nil } }
}

extension StoreValue {
    init(_ value: Int) { self = .integer(Int64(value)) }
    init(_ value: String?) { self = value.map { .text($0) } ?? .null }
}

/// One connection of a run store's database, used on its queue. The run store's SQL is written once
/// against it, with `?` placeholders and the syntax SQLite and PostgreSQL share (`ON CONFLICT`,
/// `RETURNING`), so both stores keep one meaning.
protocol RunDatabase {
    /// The rows `sql` returns with `values` bound to its placeholders.
    func rows(_ sql: String, _ values: [StoreValue]) throws -> [[StoreValue]]
    /// Runs `sql` once with `values` bound; returns the rows it changed.
    @discardableResult func execute(_ sql: String, _ values: [StoreValue]) throws -> Int
    /// Runs `sql` once per element of `rows` (a statement prepared once).
    func executeEach(_ sql: String, _ rows: [[StoreValue]]) throws
    /// Serializes the transaction it is called in against every other one that calls it, across processes:
    /// opening a run reads then writes the runs of a playbook.
    func lockRunsForOpening() throws
    /// The database's clock in Unix seconds (this machine's for a file).
    func currentTime() throws -> Double
    /// What a `SELECT` of rows to claim ends with: `FOR UPDATE SKIP LOCKED` where transactions run side by
    /// side (PostgreSQL), nothing where writers run one at a time (SQLite).
    var claimClause: String { get }
}

extension RunDatabase {
    @discardableResult func execute(_ sql: String) throws -> Int { try execute(sql, []) }

    /// A lease end already past by the database's clock: a chunk leased until then is claimed at once
    /// (its in-flight items probed) instead of when its lease would have run out.
    func lapsedLeaseEnd() throws -> StoreValue { .real(try currentTime() - 1) }
    func rows(_ sql: String) throws -> [[StoreValue]] { try rows(sql, []) }

    func scalarInt(_ sql: String, _ values: [StoreValue] = []) throws -> Int64? {
        try rows(sql, values).first?.first?.int64
    }
    func scalarString(_ sql: String, _ values: [StoreValue] = []) throws -> String? {
        try rows(sql, values).first?.first?.string
    }
}

/// Where a run store's statements run: one connection on a serial queue, off the cooperative pool.
protocol RunDatabaseQueue: Sendable {
    /// The store's location for messages: a file path, or a URL without its password.
    var location: String { get }
    /// Runs `body` on the queue.
    func read<T: Sendable>(_ body: @escaping @Sendable (any RunDatabase) throws -> T) async throws -> T
    /// Runs `body` in a transaction on the queue, committed when it returns and rolled back when it throws.
    @discardableResult func write<T: Sendable>(_ body: @escaping @Sendable (any RunDatabase) throws -> T) async throws
        -> T
}
