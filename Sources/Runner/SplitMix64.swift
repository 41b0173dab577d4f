/// SplitMix64: a tiny seeded generator, so backoff jitter and the `fail` action are reproducible.
/// See <https://prng.di.unimi.it/splitmix64.c>.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// A generator seeded from `seed` mixed with `key` and `salt`: the same inputs give the same stream
    /// whatever order concurrent workers reach them in.
    public init(seed: UInt64, key: String, salt: UInt64) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        state = seed ^ hash ^ (salt &* 0x9e37_79b9_7f4a_7c15)
        _ = next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A double uniformly in [0, 1).
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
}
