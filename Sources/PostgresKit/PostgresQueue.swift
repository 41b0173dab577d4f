import Dispatch

/// A ``PostgresConnection`` for async code: every call runs on one serial queue, so the connection is
/// used by one thread at a time and libpq's blocking calls never hold a cooperative thread.
public final class PostgresQueue: @unchecked Sendable {
    // @unchecked: `connection` is only touched on `queue`, which runs one closure at a time.
    private let connection: PostgresConnection
    private let queue = DispatchQueue(label: "walletops.postgres")

    /// Connects to `url` (see ``PostgresConnection/init(url:sessionSetup:)``).
    public init(url: String, sessionSetup: String? = nil) throws(PostgresError) {
        connection = try PostgresConnection(url: url, sessionSetup: sessionSetup)
    }

    /// The URL without its password.
    public var displayURL: String { connection.displayURL }

    /// Runs `body` with the connection on the queue.
    public func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(self.connection) }) }
        }
    }

    /// Runs `body` with the connection on the queue and blocks the calling thread until it returns: for
    /// setup code outside the concurrency pool only.
    public func sync<T>(_ body: (PostgresConnection) throws -> T) rethrows -> T {
        try queue.sync { try body(connection) }
    }

    /// Runs `body` in a transaction on the queue (committed when it returns, rolled back when it throws).
    public func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await read { connection in try connection.transaction { try body(connection) } }
    }
}
