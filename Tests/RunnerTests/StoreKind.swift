import Foundation
import PostgresKit
import TestSupport
import Testing

@testable import Runner

/// The two run stores a test runs on: an SQLite file in its folder, or a fresh database on the test
/// PostgreSQL server (TestPostgres). Both must keep one meaning.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgresql

    var testDescription: String { rawValue }

    /// A new store location: `name` in `dir`, or a fresh database.
    func location(in dir: TempDirectory, name: String = "runs.sqlite") throws -> String {
        switch self {
        case .sqlite: return dir.path(name)
        case .postgresql: return try TestPostgres.freshDatabase()
        }
    }

    /// Every byte the store at `location` holds: the SQLite file (with its WAL), or every row of every
    /// table of the store's PostgreSQL schema as text.
    func contents(of location: String) throws -> Data {
        switch self {
        case .sqlite:
            var out = Data()
            for suffix in ["", "-wal"] {
                out += (try? Data(contentsOf: URL(fileURLWithPath: location + suffix))) ?? Data()
            }
            return out
        case .postgresql:
            let connection = try PostgresConnection(url: location)
            var out = ""
            let tables = try connection.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'walletops'")
            for table in tables.rows.compactMap({ $0.first ?? nil }) {
                for row in try connection.execute("SELECT t::text FROM walletops.\(table) t").rows {
                    out += (row.first ?? nil) ?? ""
                    out += "\n"
                }
            }
            return Data(out.utf8)
        }
    }
}
