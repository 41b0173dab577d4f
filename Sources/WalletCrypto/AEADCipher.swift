internal import COpenSSL
internal import CSodium
import Foundation

/// A symmetric cipher fetched once from OpenSSL's default provider; fetching per call is slow.
final class CipherAlgorithm: @unchecked Sendable {  // immutable after init; a fetched EVP_CIPHER is shareable
    let pointer: OpaquePointer
    let name: String
    let keySize: Int

    init(_ name: String) {
        guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else { fatalError("OpenSSL provides no \(name)") }
        pointer = cipher
        self.name = name
        keySize = Int(EVP_CIPHER_get_key_length(cipher))
    }

    deinit { EVP_CIPHER_free(pointer) }

    static let aes128GCM = CipherAlgorithm("AES-128-GCM")
    static let aes256GCM = CipherAlgorithm("AES-256-GCM")
    static let chaCha20Poly1305 = CipherAlgorithm("ChaCha20-Poly1305")
    static let aes128CTR = CipherAlgorithm("AES-128-CTR")
    static let aes256CTR = CipherAlgorithm("AES-256-CTR")
    static let aes128CBC = CipherAlgorithm("AES-128-CBC")
    static let aes256CBC = CipherAlgorithm("AES-256-CBC")
}

/// An EVP_CIPHER_CTX keyed once for an AEAD with a 12-byte nonce and a 16-byte tag; each seal or
/// open only sets the nonce, so the key schedule is reused. Confined to one thread at a time.
///
/// AES-256-GCM goes through libsodium's AES-NI code instead when the CPU has AES-NI and PCLMUL
/// (`crypto_aead_aes256gcm_beforenm` once, then `..._afternm` per message): the same AES-GCM, bytes for
/// bytes, without OpenSSL 3's per-call provider dispatch and parameter lookups, which cost about a
/// microsecond for each 32-byte key an import seals or opens (docs/bench.md "Import CPU per key").
final class AEADCipherContext {
    static let nonceSize = 12
    static let tagSize = 16

    private let ctx: OpaquePointer
    private let algorithm: CipherAlgorithm
    private var encrypting: Bool?
    private let key: SecretBytes
    /// libsodium's precomputed AES-256-GCM state (the expanded key and GHASH powers: secret, wiped on
    /// release); nil when OpenSSL does the work.
    private let sodiumState: UnsafeMutablePointer<crypto_aead_aes256gcm_state>?

    /// - Parameter openSSLOnly: leave libsodium out (tests compare the two backends).
    init(_ algorithm: CipherAlgorithm, key: SecretBytes, openSSLOnly: Bool = false) throws {
        guard key.count == algorithm.keySize else {
            throw CryptoError(
                .invalidKey, "\(algorithm.name): the key must be \(algorithm.keySize) bytes, got \(key.count)")
        }
        guard let ctx = EVP_CIPHER_CTX_new() else {
            throw OpenSSL.error(.libraryFailure, "\(algorithm.name): out of memory")
        }
        self.ctx = ctx
        self.algorithm = algorithm
        self.key = key
        sodiumState =
            algorithm === CipherAlgorithm.aes256GCM && !openSSLOnly ? Self.sodiumAES256GCM(key: key) : nil
    }

    deinit {
        EVP_CIPHER_CTX_free(ctx)  // EVP_CIPHER_CTX_free cleanses the key schedule
        if let sodiumState {
            sodium_memzero(sodiumState, crypto_aead_aes256gcm_statebytes())
            UnsafeMutableRawPointer(sodiumState).deallocate()
        }
    }

    /// Whether this context seals and opens through libsodium.
    var usesSodium: Bool { sodiumState != nil }

    /// Whether libsodium's AES-256-GCM runs here (AES-NI and PCLMUL, libsodium initialised).
    static let sodiumAES256GCMAvailable: Bool = Sodium.ready && crypto_aead_aes256gcm_is_available() != 0

    /// libsodium's AES-256-GCM state keyed with `key`, or nil where it does not run.
    private static func sodiumAES256GCM(key: SecretBytes) -> UnsafeMutablePointer<crypto_aead_aes256gcm_state>? {
        guard sodiumAES256GCMAvailable else { return nil }
        // Allocated raw with libsodium's alignment (16): the imported struct may not carry it.
        let raw = UnsafeMutableRawPointer.allocate(byteCount: crypto_aead_aes256gcm_statebytes(), alignment: 16)
        let state = raw.bindMemory(to: crypto_aead_aes256gcm_state.self, capacity: 1)
        let ok = withSecretBytes(key) { keyBytes, _ in crypto_aead_aes256gcm_beforenm(state, keyBytes) == 0 }
        guard ok else {
            sodium_memzero(raw, crypto_aead_aes256gcm_statebytes())
            raw.deallocate()
            return nil
        }
        return state
    }

    /// Seals with libsodium into `out` (`count + 16` bytes: ciphertext, then tag).
    private static func sodiumSeal(
        _ state: UnsafePointer<crypto_aead_aes256gcm_state>, _ input: UnsafePointer<UInt8>, _ count: Int,
        aad: UnsafePointer<UInt8>?, _ aadCount: Int, nonce: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        var tagLength: UInt64 = 0
        return crypto_aead_aes256gcm_encrypt_detached_afternm(
            out, out + count, &tagLength, input, UInt64(count), aad, UInt64(aadCount), nil, nonce, state) == 0
            && tagLength == UInt64(tagSize)
    }

    /// Keys the context for one direction the first time, then only resets the nonce.
    private func start(encrypt: Bool, nonce: UnsafePointer<UInt8>) throws {
        let ok: Bool
        if encrypting == encrypt {
            ok = EVP_CipherInit_ex2(ctx, nil, nil, nonce, encrypt ? 1 : 0, nil) == 1
        } else {
            ok = withSecretBytes(key) { keyBytes, _ in
                EVP_CipherInit_ex2(ctx, algorithm.pointer, keyBytes, nonce, encrypt ? 1 : 0, nil) == 1
            }
            encrypting = ok ? encrypt : nil
        }
        guard ok else { throw OpenSSL.error(.libraryFailure, "\(algorithm.name): initialisation failed") }
    }

    /// Returns ciphertext || tag.
    func seal(_ plaintext: some ContiguousBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes) throws
        -> [UInt8]
    {
        try withInputBytes(nonce) { noncePointer, nonceCount in
            guard nonceCount == Self.nonceSize else {
                throw CryptoError(.invalidParameter, "\(algorithm.name): the nonce must be 12 bytes, got \(nonceCount)")
            }
            if let sodiumState {
                return try withInputBytes(plaintext) { input, count in
                    try withInputBytes(aad) { aadPointer, aadCount in
                        try [UInt8](unsafeUninitializedCapacity: count + Self.tagSize) { out, initialized in
                            guard
                                Self.sodiumSeal(
                                    sodiumState, input, count, aad: aadPointer, aadCount, nonce: noncePointer,
                                    into: out.baseAddress!)
                            else {
                                initialized = 0
                                throw CryptoError(.invalidParameter, "\(algorithm.name): encryption failed")
                            }
                            initialized = count + Self.tagSize
                        }
                    }
                }
            }
            try start(encrypt: true, nonce: noncePointer)
            return try withInputBytes(plaintext) { input, count in
                try withInputBytes(aad) { aadPointer, aadCount in
                    try OpenSSL.checkLength(count, algorithm.name)
                    try OpenSSL.checkLength(aadCount, algorithm.name)
                    return try [UInt8](unsafeUninitializedCapacity: count + Self.tagSize) { out, initialized in
                        var written: Int32 = 0
                        var tail: Int32 = 0
                        let base = out.baseAddress!
                        guard aadCount == 0 || EVP_EncryptUpdate(ctx, nil, &written, aadPointer, Int32(aadCount)) == 1,
                            EVP_EncryptUpdate(ctx, base, &written, input, Int32(count)) == 1,
                            EVP_EncryptFinal_ex(ctx, base + Int(written), &tail) == 1,
                            Int(written + tail) == count,
                            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagSize), base + count) == 1
                        else {
                            initialized = 0
                            throw OpenSSL.error(.libraryFailure, "\(algorithm.name): encryption failed")
                        }
                        initialized = count + Self.tagSize
                    }
                }
            }
        }
    }

    /// Seals into a caller-provided buffer of `plaintext.count + 16` bytes: no allocation, for hot loops.
    func seal(
        _ plaintext: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws {
        let count = plaintext.count
        guard nonce.count == Self.nonceSize, let noncePointer = nonce.baseAddress else {
            throw CryptoError(.invalidParameter, "\(algorithm.name): the nonce must be 12 bytes, got \(nonce.count)")
        }
        guard output.count >= count + Self.tagSize, let base = output.baseAddress else {
            throw CryptoError(.invalidParameter, "\(algorithm.name): the output needs \(count + Self.tagSize) bytes")
        }
        let out = base.assumingMemoryBound(to: UInt8.self)
        if let sodiumState {
            let input = plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(out)
            guard
                Self.sodiumSeal(
                    sodiumState, input, count, aad: nil, 0, nonce: noncePointer.assumingMemoryBound(to: UInt8.self),
                    into: out)
            else { throw CryptoError(.invalidParameter, "\(algorithm.name): encryption failed") }
            return
        }
        try OpenSSL.checkLength(count, algorithm.name)
        try start(encrypt: true, nonce: noncePointer.assumingMemoryBound(to: UInt8.self))
        var written: Int32 = 0
        var tail: Int32 = 0
        let input = plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(out)
        guard EVP_EncryptUpdate(ctx, out, &written, input, Int32(count)) == 1,
            EVP_EncryptFinal_ex(ctx, out + Int(written), &tail) == 1, Int(written + tail) == count,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagSize), out + count) == 1
        else { throw OpenSSL.error(.libraryFailure, "\(algorithm.name): encryption failed") }
    }

    /// Opens ciphertext || tag; throws `authenticationFailure` (and releases nothing) when the tag is wrong.
    func open(_ sealed: some ContiguousBytes, nonce: some ContiguousBytes, aad: some ContiguousBytes) throws
        -> [UInt8]
    {
        try withInputBytes(nonce) { noncePointer, nonceCount in
            guard nonceCount == Self.nonceSize else {
                throw CryptoError(.invalidParameter, "\(algorithm.name): the nonce must be 12 bytes, got \(nonceCount)")
            }
            return try withInputBytes(sealed) { input, total in
                guard total >= Self.tagSize else {
                    throw CryptoError(.authenticationFailure, "\(algorithm.name): the input is shorter than the tag")
                }
                let count = total - Self.tagSize
                if let sodiumState {
                    return try withInputBytes(aad) { aadPointer, aadCount in
                        var plaintext = [UInt8](repeating: 0, count: count)
                        let ok = plaintext.withUnsafeMutableBufferPointer { out in
                            crypto_aead_aes256gcm_decrypt_detached_afternm(
                                out.baseAddress ?? UnsafeMutablePointer(mutating: input), nil, input, UInt64(count),
                                input + count, aadPointer, UInt64(aadCount), noncePointer, sodiumState) == 0
                        }
                        guard ok else {
                            SecretBytes.wipe(&plaintext)
                            throw CryptoError(
                                .authenticationFailure,
                                "\(algorithm.name): authentication failed (wrong key, nonce, tag or data)")
                        }
                        return plaintext
                    }
                }
                try start(encrypt: false, nonce: noncePointer)
                return try withInputBytes(aad) { aadPointer, aadCount in
                    try OpenSSL.checkLength(count, algorithm.name)
                    try OpenSSL.checkLength(aadCount, algorithm.name)
                    var plaintext = [UInt8](repeating: 0, count: count)
                    var written: Int32 = 0
                    var tail: Int32 = 0
                    let tag = UnsafeMutableRawPointer(mutating: input + count)
                    let ok = plaintext.withUnsafeMutableBufferPointer { out in
                        let base = out.baseAddress ?? UnsafeMutablePointer(mutating: input)
                        return
                            (aadCount == 0 || EVP_DecryptUpdate(ctx, nil, &written, aadPointer, Int32(aadCount)) == 1)
                            && EVP_DecryptUpdate(ctx, base, &written, input, Int32(count)) == 1
                            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagSize), tag) == 1
                            && EVP_DecryptFinal_ex(ctx, base + Int(written), &tail) == 1
                    }
                    guard ok else {
                        SecretBytes.wipe(&plaintext)
                        OpenSSL.clearErrors()
                        throw CryptoError(
                            .authenticationFailure,
                            "\(algorithm.name): authentication failed (wrong key, nonce, tag or data)")
                    }
                    return plaintext
                }
            }
        }
    }
}
