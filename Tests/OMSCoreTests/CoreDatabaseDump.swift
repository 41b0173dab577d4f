import OMSCore
import SQLiteKit

/// Every row of every table of a core's database, read through a separate read-only connection, so a
/// test can show that a refused request changed nothing.
struct CoreDatabaseDump: Equatable {
    /// Rows by table name, in rowid order.
    var tables: [String: [[SQLiteValue]]]

    static func read(_ home: CoreHome) throws -> CoreDatabaseDump {
        var configuration = SQLiteDatabase.Configuration.default
        configuration.flags = .readOnly
        let db = try SQLiteDatabase(path: home.databaseURL.path, configuration: configuration)
        var tables: [String: [[SQLiteValue]]] = [:]
        let names = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap {
            if case .text(let name) = $0[0] { return name }
            return nil
        }
        for name in names {
            tables[name] = try db.rows("SELECT * FROM \"\(name)\" ORDER BY rowid")
        }
        return CoreDatabaseDump(tables: tables)
    }

    /// The tables whose rows differ from `other`'s, with their row counts (never the rows: they hold
    /// sealed keys and hashes that have no place in test output).
    func changes(since other: CoreDatabaseDump) -> [String] {
        Set(tables.keys).union(other.tables.keys).sorted().filter { tables[$0] != other.tables[$0] }.map {
            "\($0): \(other.tables[$0]?.count ?? 0) -> \(tables[$0]?.count ?? 0) rows"
        }
    }
}
