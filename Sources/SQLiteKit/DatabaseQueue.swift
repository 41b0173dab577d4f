import Dispatch

/// Serializes all access to one ``SQLiteDatabase`` on a private dispatch queue.
///
/// SQLite calls block (disk I/O, fsync, busy waits), so they must not run on Swift's cooperative
/// thread pool: ``read(_:)``/``write(_:)`` hop to the queue and resume the caller through a checked
/// continuation, leaving the pool free. The connection never leaves the queue.
public final class DatabaseQueue: @unchecked Sendable {
    // @unchecked: `database` is only touched on `queue`, which runs one closure at a time.
    private let database: SQLiteDatabase
    private let queue: DispatchQueue

    /// The database file path.
    public let path: String

    /// Opens the database at `path` and runs `migrations` on the queue before returning; nil leaves the
    /// schema alone, for a connection beside the one that owns it (which refuses a schema newer than its
    /// migrations).
    public init(
        path: String, configuration: SQLiteDatabase.Configuration = .default,
        migrations: [SQLiteDatabase.Migration]? = []
    ) throws {
        let queue = DispatchQueue(label: "walletops.sqlite")
        self.queue = queue
        self.path = path
        self.database = try queue.sync {
            let db = try SQLiteDatabase(path: path, configuration: configuration)
            if let migrations { try db.migrate(migrations) }
            return db
        }
    }

    /// Runs `body` with the connection on the queue and returns its result, without blocking the caller's
    /// thread.
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body(self.database) })
            }
        }
    }

    /// Runs `body` inside an immediate transaction on the queue (committed when it returns).
    public func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await read { db in try db.transaction(.immediate) { try body(db) } }
    }

    /// Runs `body` with the connection on the queue, after what is queued before it; the caller does not
    /// wait for it.
    public func enqueue(_ body: @escaping @Sendable (SQLiteDatabase) -> Void) {
        queue.async { body(self.database) }
    }

    /// Runs `body` on the queue and blocks the calling thread until it finishes. For setup code and
    /// synchronous callers outside the concurrency pool only.
    public func sync<T>(_ body: (SQLiteDatabase) throws -> T) rethrows -> T {
        try queue.sync { try body(database) }
    }
}
