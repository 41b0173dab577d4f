import HomeLayout
import OMSCore
import SQLiteKit

/// Every row of every table of a core's database, read through a separate read-only connection, so a
/// test can show that a refused request changed nothing.
struct CoreDatabaseDump: Equatable {
    /// Rows by table name, in rowid order (primary-key order for WITHOUT ROWID tables).
    var tables: [String: [[SQLiteValue]]]

    static func read(_ home: WalletHome) throws -> CoreDatabaseDump {
        var configuration = SQLiteDatabase.Configuration.default
        configuration.flags = .readOnly
        let db = try SQLiteDatabase(path: home.databaseURL.path, configuration: configuration)
        var tables: [String: [[SQLiteValue]]] = [:]
        let names = try db.rows("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap {
            row -> (String, Bool)? in
            guard case .text(let name) = row[0] else { return nil }
            if case .text(let sql) = row[1] { return (name, sql.contains("WITHOUT ROWID")) }
            return (name, false)
        }
        for (name, withoutRowid) in names {
            // A WITHOUT ROWID table has no rowid; a plain scan reads it in primary-key order.
            tables[name] = try db.rows("SELECT * FROM \"\(name)\"" + (withoutRowid ? "" : " ORDER BY rowid"))
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
