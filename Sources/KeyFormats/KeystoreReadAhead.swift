/// Decrypts a list of keystore files in order on a ``KeystoreDecryptionPool``, keeping `readAhead`
/// files started beyond those handed out, so the pool's slots stay busy while the caller works on
/// the records it has (an import sends one batch while the next one decrypts).
///
/// A caller that asks for fewer files than the pool has slots (a small batch) still gets every slot
/// used: before waiting for a file, the `readAhead` files after it are started too.
///
/// Bounds: once ``next(_:)`` returns, at most `readAhead` files are started and not handed out, each a
/// parsed keystore (under 64 KiB) waiting for a slot, or its record (the key in `SecretBytes`); the
/// KDF memory stays within the pool's slots whatever `readAhead` is. Records come back in the list's
/// order, each as ``KeystoreDecryptionPool/decryptFile(at:passwords:)`` makes it: a wrong password or
/// a bad file is the record's error, located at the file name.
///
/// Confined to the task that calls ``next(_:)`` (not `Sendable`). The decryptions run in tasks of
/// their own, cancelled when this is released: one waiting for a slot leaves the queue, one already
/// running finishes on its thread and its key is wiped when its record is dropped.
public final class KeystoreReadAhead {
    /// Files kept started beyond those handed out.
    public let readAhead: Int
    private let paths: [String]
    private let passwords: PasswordSource
    private let pool: KeystoreDecryptionPool
    /// Started and not handed out, in list order (at most `readAhead + 1`).
    private var pending: [Task<KeyRecord, any Error>] = []
    /// The number of files started so far (the index of the next one to start).
    private(set) var started = 0

    /// Twice the pool's slots: when a batch is handed out, every slot has a file running and another
    /// queued behind it.
    public static func defaultReadAhead(for pool: KeystoreDecryptionPool) -> Int {
        2 * pool.configuration.maxConcurrent
    }

    /// A reader of the keystore files at `paths`, in that order.
    ///
    /// - Parameters:
    ///   - passwords: each file's password, by file name.
    ///   - pool: where the files are decrypted (shared with other readers or not).
    ///   - readAhead: files kept started beyond those handed out (at least 1; default
    ///     ``defaultReadAhead(for:)``).
    public init(paths: [String], passwords: PasswordSource, pool: KeystoreDecryptionPool, readAhead: Int? = nil) {
        self.paths = paths
        self.passwords = passwords
        self.pool = pool
        self.readAhead = max(1, readAhead ?? Self.defaultReadAhead(for: pool))
    }

    deinit {
        for task in pending { task.cancel() }
    }

    /// The files not handed out yet.
    public var remaining: Int { paths.count - started + pending.count }

    /// The next `count` records in the list's order (fewer at the end; empty when done), leaving
    /// `readAhead` files decrypting for the next call.
    ///
    /// - Throws: only `CancellationError`, when the calling task is cancelled.
    public func next(_ count: Int) async throws -> [KeyRecord] {
        var records: [KeyRecord] = []
        records.reserveCapacity(min(max(0, count), remaining))
        while records.count < count {
            try Task.checkCancellation()
            start(upTo: started - pending.count + 1 + readAhead)
            guard !pending.isEmpty else { break }
            let task = pending.removeFirst()
            records.append(
                try await withTaskCancellationHandler {
                    try await task.value
                } onCancel: {
                    task.cancel()
                })
        }
        start(upTo: started - pending.count + readAhead)
        return records
    }

    /// Starts files until `limit` of them (from the first) have been started, or the list ends.
    private func start(upTo limit: Int) {
        let pool = pool
        let passwords = passwords
        while started < min(limit, paths.count) {
            let path = paths[started]
            pending.append(Task { try await pool.decryptFile(at: path, passwords: passwords) })
            started += 1
        }
    }
}
