// Concrete-type entry points for the hot path. The generic `some ContiguousBytes` methods are not
// specialized across modules, so a caller in another module pays for protocol dispatch on every small
// message; with byte arrays, overload resolution picks these, and they call the generic code
// specialized here, inside the module.

extension AEADContext {
    /// Encrypts and authenticates; returns `ciphertext || tag`.
    public final func seal(_ plaintext: [UInt8], nonce: [UInt8], authenticating aad: [UInt8] = []) throws -> [UInt8] {
        try cipher.seal(plaintext, nonce: nonce, aad: aad)
    }

    /// Checks and decrypts `ciphertext || tag`.
    public final func open(_ sealed: [UInt8], nonce: [UInt8], authenticating aad: [UInt8] = []) throws -> [UInt8] {
        try cipher.open(sealed, nonce: nonce, aad: aad)
    }
}

extension AESGCM.Context {
    /// Seals `plaintext` into `output` (at least `plaintext.count + 16` bytes: ciphertext, then tag)
    /// without allocating, for loops that seal many small messages.
    public func seal(
        _ plaintext: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws {
        try cipher.seal(plaintext, nonce: nonce, into: output)
    }
}
