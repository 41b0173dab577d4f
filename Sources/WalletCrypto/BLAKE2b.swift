internal import CSodium

/// Keyed BLAKE2b ([RFC 7693](https://www.rfc-editor.org/rfc/rfc7693)), libsodium's `crypto_generichash`:
/// a keyed digest in one call, for fingerprints that must say nothing without the key.
public enum BLAKE2b {
    /// The key size this project uses: 32 bytes (libsodium's `crypto_generichash_KEYBYTES`).
    public static let keyByteCount = Int(crypto_generichash_KEYBYTES)

    /// Writes the BLAKE2b digest of `input` under `key` into `digest`, whose size (16 to 64 bytes) is the
    /// digest's.
    public static func hash(
        _ input: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer
    ) {
        precondition(Sodium.ready, "libsodium failed to initialise")
        precondition(
            digest.count >= Int(crypto_generichash_BYTES_MIN) && digest.count <= Int(crypto_generichash_BYTES_MAX))
        _ = crypto_generichash(
            digest.baseAddress!.assumingMemoryBound(to: UInt8.self), digest.count,
            input.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(input.count),
            key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count)
    }
}
