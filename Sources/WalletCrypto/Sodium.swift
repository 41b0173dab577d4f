internal import CSodium

/// libsodium's one-time setup, shared by every WalletCrypto type that calls libsodium.
///
/// `sodium_init` also reads the CPU's features, and libsodium picks its implementations from them
/// at each call: before it, scrypt runs the portable code instead of the SSE2 one (about 30% more
/// CPU per derivation at n = 2^18, r = 8, docs/bench.md). See
/// <https://doc.libsodium.org/usage>.
enum Sodium {
    /// True once `sodium_init` has succeeded; the first read runs it (thread-safe, once).
    static let ready: Bool = sodium_init() >= 0

    /// Whether libsodium detected SSE2 (false before ``ready`` was first read, and off x86).
    static var detectedSSE2: Bool { sodium_runtime_has_sse2() != 0 }
}
