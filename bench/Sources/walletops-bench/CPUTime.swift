import Foundation

/// CPU time rather than wall time: on a shared machine a loaded neighbour stretches wall time, not the CPU
/// an operation needs, so floors and per-operation costs measured this way compare across moments.
enum CPUTime {
    static func microseconds(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3
    }

    /// CPU time of every thread of this process (clients, core and HTTP server together).
    static func process() -> Double { microseconds(CLOCK_PROCESS_CPUTIME_ID) }

    /// Median CPU microseconds of the calling thread per call of `body`, over 7 rounds of about 20 ms
    /// each, after a short warm-up that also sizes the rounds.
    static func perCall(_ body: () throws -> Void) rethrows -> Double {
        let start = microseconds(CLOCK_THREAD_CPUTIME_ID)
        for _ in 0..<3 { try body() }
        let estimate = max((microseconds(CLOCK_THREAD_CPUTIME_ID) - start) / 3, 1)
        let iterations = max(3, Int(20_000 / estimate))
        var samples: [Double] = []
        for _ in 0..<7 {
            let round = microseconds(CLOCK_THREAD_CPUTIME_ID)
            for _ in 0..<iterations { try body() }
            samples.append((microseconds(CLOCK_THREAD_CPUTIME_ID) - round) / Double(iterations))
        }
        samples.sort()
        return samples[samples.count / 2]
    }
}
