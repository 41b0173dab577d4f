internal import CSodium
import Foundation

/// scrypt (RFC 7914), as Ethereum keystore V3 files with `"kdf": "scrypt"` use it.
///
/// Runs libsodium's `crypto_pwhash_scryptsalsa208sha256_ll`, which accepts the parameters real
/// wallet files use (for example n = 262144, r = 1, p = 8) that OpenSSL 3.0's scrypt refuses.
/// `derive` blocks the calling thread for as long as the cost demands; from async code use
/// `deriveInBackground`, which runs on a dedicated thread instead of the cooperative pool.
public enum Scrypt {
    /// One derivation at a time: keeps memory within one `maxMemory` and leaves the pool free.
    private static let queue = DispatchQueue(label: "walletops.scrypt", qos: .userInitiated)

    /// The default memory bound: 1 GiB, above geth's standard n = 2^18, r = 8 (256 MiB).
    public static let defaultMaxMemory = 1 << 30

    /// The memory scrypt needs for these parameters: 128 * r * (n + p) bytes, or nil on overflow.
    public static func memoryRequired(n: Int, r: Int, p: Int) -> Int? {
        let (np, o1) = n.addingReportingOverflow(p)
        let (rr, o2) = (128).multipliedReportingOverflow(by: r)
        let (total, o3) = rr.multipliedReportingOverflow(by: np)
        return o1 || o2 || o3 ? nil : total
    }

    /// Derives `length` bytes from `password` and `salt`.
    ///
    /// - Parameters:
    ///   - n: CPU/memory cost, a power of two greater than 1.
    ///   - r: block size, at least 1.
    ///   - p: parallelisation, at least 1, with r * p < 2^30.
    ///   - length: output length in bytes, at least 1.
    ///   - maxMemory: the most memory, in bytes, the caller allows (`128 * r * (n + p)` must fit).
    /// - Throws: `CryptoError.invalidParameter` for malformed parameters; `.memoryLimitExceeded` when
    ///   the parameters need more than `maxMemory`.
    public static func derive(
        password: SecretBytes, salt: some ContiguousBytes, n: Int, r: Int, p: Int, length: Int,
        maxMemory: Int = defaultMaxMemory
    ) throws -> SecretBytes {
        guard n > 1, n & (n - 1) == 0 else {
            throw CryptoError(.invalidParameter, "scrypt: n = \(n) is not a power of two greater than 1")
        }
        let rp = r.multipliedReportingOverflow(by: p)
        guard r >= 1, p >= 1, !rp.overflow, rp.partialValue < 1 << 30 else {
            throw CryptoError(.invalidParameter, "scrypt: r = \(r), p = \(p) are out of range (r * p < 2^30)")
        }
        guard length >= 1 else { throw CryptoError(.invalidParameter, "scrypt: length must be at least 1") }
        guard let needed = memoryRequired(n: n, r: r, p: p), needed <= maxMemory else {
            throw CryptoError(
                .memoryLimitExceeded,
                "scrypt: n = \(n), r = \(r), p = \(p) need 128*r*(n+p) = \(memoryRequired(n: n, r: r, p: p).map(String.init) ?? "too many") bytes, above the limit of \(maxMemory)"
            )
        }
        // Without sodium_init libsodium runs its portable scrypt, not the SSE2 one (Sodium.swift).
        precondition(Sodium.ready, "sodium_init failed")
        return try withSecretBytes(password) { passwordPointer, passwordCount in
            try withInputBytes(salt) { saltPointer, saltCount in
                try SecretBytes(count: length) { out in
                    let status = crypto_pwhash_scryptsalsa208sha256_ll(
                        passwordPointer, passwordCount, saltPointer, saltCount, UInt64(n), UInt32(r), UInt32(p),
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), length)
                    guard status == 0 else {
                        throw CryptoError(
                            .libraryFailure,
                            "scrypt: libsodium failed for n = \(n), r = \(r), p = \(p) (out of memory?)")
                    }
                }
            }
        }
    }

    /// `derive` run on a dedicated serial queue, so it never stalls Swift's cooperative thread pool.
    ///
    /// Derivations queue behind one another. Cancellation is checked before the work starts; a
    /// derivation that has started runs to completion.
    /// - Throws: what `derive` throws, or `CancellationError`.
    public static func deriveInBackground(
        password: SecretBytes, salt: some ContiguousBytes, n: Int, r: Int, p: Int, length: Int,
        maxMemory: Int = defaultMaxMemory
    ) async throws -> SecretBytes {
        try Task.checkCancellation()
        let saltBytes = salt.withUnsafeBytes { Array($0) }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(
                    with: Result {
                        try derive(
                            password: password, salt: saltBytes, n: n, r: r, p: p, length: length, maxMemory: maxMemory)
                    })
            }
        }
    }
}
