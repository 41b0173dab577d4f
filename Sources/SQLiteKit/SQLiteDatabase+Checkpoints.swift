internal import CSQLite

extension SQLiteDatabase {
    /// Calls `observer` on this connection's thread after each transaction it commits to the WAL, with the
    /// frames the WAL then holds (the ones already copied back included, until the log restarts), in place
    /// of SQLite's automatic checkpoint; when `observer` returns true the connection runs a PASSIVE
    /// checkpoint there and then, as the automatic one would. Why: a store that copies the WAL back on
    /// another connection (``WALCheckpointer``) still needs its writer to restart the log now and then,
    /// and only the writer sees each commit. See <https://www.sqlite.org/c3ref/wal_hook.html>.
    public func observeWALCommits(_ observer: @escaping (_ walFrames: Int) -> Bool) {
        let box = WALCommitObserver(observer)
        attach(box)
        sqlite3_wal_hook(
            handle,
            { context, db, _, frames in
                guard let context else { return SQLITE_OK }
                let observer = Unmanaged<WALCommitObserver>.fromOpaque(context).takeUnretainedValue()
                if observer.body(Int(frames)) {
                    // As SQLite's own automatic checkpoint: a busy checkpointer elsewhere is not an error.
                    _ = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// Copies what it can of the WAL back to the database file without waiting for any lock (a PASSIVE
    /// checkpoint) and returns the WAL's frames and those now copied back.
    ///
    /// - Throws: ``SQLiteError`` on an I/O error; another connection's checkpoint running is not one
    ///   (nothing is copied and both counts are zero).
    @discardableResult
    public func checkpointPassively() throws(SQLiteError) -> (walFrames: Int, copied: Int) {
        var frames: Int32 = 0
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
        if rc == SQLITE_BUSY { return (0, 0) }
        guard rc == SQLITE_OK else { throw error(code: rc, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        return (Int(max(frames, 0)), Int(max(copied, 0)))
    }

    /// Copies the whole WAL back and empties the file (a TRUNCATE checkpoint) without waiting for another
    /// connection: with one reading or writing, it copies what it can as a PASSIVE checkpoint would, leaves
    /// the log as it is and returns false. Why: the close of the last connection then has no frames to copy
    /// and no long file to delete, and this can run while the process does other work before it closes.
    ///
    /// - Throws: ``SQLiteError`` on an I/O error.
    @discardableResult
    public func checkpointTruncating() throws(SQLiteError) -> Bool {
        // Without the busy handler for this call: SQLite then gives up at the first lock held elsewhere.
        sqlite3_busy_handler(handle, nil, nil)
        defer { busyWait.install(on: handle) }
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        if rc == SQLITE_BUSY { return false }
        guard rc == SQLITE_OK else { throw error(code: rc, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        return true
    }
}

/// The closure of ``SQLiteDatabase/observeWALCommits(_:)``, kept alive with the connection.
final class WALCommitObserver {
    let body: (Int) -> Bool
    init(_ body: @escaping (Int) -> Bool) { self.body = body }
}
