import Synchronization

/// Copies a WAL database's log back to its file on a connection and queue of its own, when asked
/// (``request()``): the writer then neither stops for the copy nor leaves a long log for the close of the
/// last connection, which copies what is left. Requests made while a copy is queued are one request.
///
/// The writer still restarts the log now and then (``SQLiteDatabase/observeWALCommits(_:)``): a log is
/// written from its start again only when a writer begins with every frame copied back, which a copy
/// running beside back-to-back commits seldom leaves it.
public final class WALCheckpointer: Sendable {
    private let connection: DatabaseQueue
    private let queued = Atomic<Bool>(false)
    private let copies = Atomic<Int>(0)

    /// Opens a connection of its own to the WAL database at `path` (which must exist), with
    /// `configuration`'s `synchronous`, which sets how the copies sync the files.
    public init(path: String, configuration: SQLiteDatabase.Configuration) throws {
        connection = try DatabaseQueue(path: path, configuration: configuration, migrations: nil)
    }

    /// Copies the log back soon, on the checkpointer's queue, unless a copy is already queued.
    public func request() {
        guard !queued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        connection.enqueue { [self] db in
            queued.store(false, ordering: .releasing)
            // A failed copy leaves the frames in the log, where readers still find them and the next copy,
            // or the close, copies them: nothing to answer.
            if (try? db.checkpointPassively()) != nil { copies.add(1, ordering: .relaxed) }
        }
    }

    /// Copies the whole log back and empties its file, after the copies requested so far, unless another
    /// connection is using it then (``SQLiteDatabase/checkpointTruncating()``); returns whether it did.
    public func truncate() async -> Bool {
        (try? await connection.read { db in try db.checkpointTruncating() }) ?? false
    }

    /// Returns once the copies requested so far have run.
    public func drain() {
        connection.sync { _ in }
    }

    /// Copies run, for tests.
    public var completedCopies: Int { copies.load(ordering: .relaxed) }
}
