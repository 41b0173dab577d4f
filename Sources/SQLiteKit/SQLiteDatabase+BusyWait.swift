internal import CSQLite
import Foundation

/// How a connection waits for another connection's write lock: it retries about every millisecond, up
/// to the configured timeout.
///
/// SQLite's own `sqlite3_busy_timeout` backs off to 100 ms between attempts. Against a writer that
/// commits back to back (a job's group commits, each followed at once by the next), a waiter that sleeps
/// 100 ms nearly always wakes inside the next transaction: `walletops wallet list` beside an embedded
/// job waited until the job ended, and a longer job would have made it fail with SQLITE_BUSY after the
/// 5 s timeout. Gaps between the writer's commits are short but frequent, so polling every millisecond
/// (with a little jitter, so two waiters do not wake in step) gets in within a few attempts. Each attempt
/// is a few lock syscalls, so a waiter costs next to nothing while it waits.
final class BusyWait {
    let timeout: Duration
    private var started = ContinuousClock.now

    init(timeoutMilliseconds: Int32) {
        timeout = .milliseconds(max(Int(timeoutMilliseconds), 0))
    }

    /// One invocation of the busy handler: whether to try again.
    func shouldRetry(priorAttempts: Int32) -> Bool {
        let now = ContinuousClock.now
        if priorAttempts == 0 { started = now }
        guard now - started < timeout else { return false }
        usleep(UInt32.random(in: 700...1_300))
        return true
    }

    /// Installs this wait as `db`'s busy handler. The connection keeps `self` alive while installed.
    func install(on db: OpaquePointer) {
        sqlite3_busy_handler(
            db,
            { context, count in
                guard let context else { return 0 }
                return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().shouldRetry(priorAttempts: count)
                    ? 1 : 0
            }, Unmanaged.passUnretained(self).toOpaque())
    }
}
