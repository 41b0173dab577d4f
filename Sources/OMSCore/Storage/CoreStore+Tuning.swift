extension CoreStore {
    /// The store's tuning mechanisms, each on by default and each switched off by one value, so a maintainer
    /// can measure whether it still pays or rule it out while chasing a bug, without editing code
    /// (docs/bench.md "Tuning mechanisms and how to switch them off"; the command line sets them from
    /// `WALLETOPS_TUNING_OFF`). None changes what is stored or answered.
    public struct Tuning: Sendable, Equatable {
        /// The writer connection's page cache, in KiB (`cache_size`); nil keeps SQLite's default. Bulk
        /// creates dirty a page of the random-order address index per row: a cache above the default keeps
        /// a batch from spilling and rewriting pages, and a modest cap keeps memory flat as the database
        /// grows (docs/bench.md "Choices and what they measured").
        public var pageCacheKibibytes: Int? = 4 * 1024
        /// The group commits run on one long-lived thread of the store's (true) rather than on a serial
        /// dispatch queue's worker of the moment (false). Why: SQLite's allocations in a commit then come
        /// from that thread's malloc arena, reused commit after commit, instead of raising the high-water
        /// mark of several arenas (docs/bench.md "Choices and what they measured").
        public var flushesOnOwnThread = true
        /// After a group commit of bulk weight, the heap's freed pages go back to the system
        /// (``SQLiteKit/SQLiteDatabase/returnFreedMemory()``), so memory stays flat as imports go on.
        public var returnsFreedMemoryAfterBulkCommits = true
        /// The WAL is copied back to the database on a connection of its own (``SQLiteKit/WALCheckpointer``),
        /// asked every ``CoreStore/backgroundCheckpointFrames``, rather than by the writer every
        /// ``CoreStore/walRestartFrames`` and at the close. Why: the copy of a bulk import's pages, and of
        /// the log a killed process left, no longer waits at the end of a run (docs/core.md "Storage").
        public var checkpointsInBackground = true

        /// Every mechanism on.
        public init() {}

        /// Every mechanism on: the store as it runs in production.
        public static let `default` = Tuning()
    }
}
