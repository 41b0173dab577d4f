internal import CSodium

/// libsodium's one-time setup, shared by every WalletCrypto type that calls libsodium.
///
/// `sodium_init` also reads the CPU's features, and libsodium picks its implementations from them
/// at each call: before it, its AES-256-GCM reports itself unavailable and its scrypt ran the portable
/// code (about 30% more CPU, docs/bench.md "The keystore case", before our own scrypt replaced it). See
/// <https://doc.libsodium.org/usage>.
enum Sodium {
    /// True once `sodium_init` has succeeded; the first read runs it (thread-safe, once).
    static let ready: Bool = sodium_init() >= 0
}
