internal import CSQLite

/// The SQLite library version this build links against.
public enum SQLiteLibrary {
    public static var version: String { String(cString: sqlite3_libversion()) }
}
