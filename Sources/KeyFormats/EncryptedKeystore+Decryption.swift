public import WalletCrypto

extension EncryptedKeystore {
    /// Derives the key from `password`, checks the MAC in constant time, and only then decrypts.
    ///
    /// Blocks the calling thread for the KDF's cost (about a second for scrypt n = 2^18); from async
    /// code use ``KeystoreDecryptionPool``. The MAC is keccak256(DK[16..<32] ++ ciphertext); a wrong
    /// password fails it and never yields a key. Keys of 30 or 31 bytes (leading zeros dropped by
    /// some writers) are left-padded to 32.
    ///
    /// - Parameters:
    ///   - password: the password's bytes (UTF-8 as typed; an empty password is allowed).
    ///   - maxScryptMemory: the most memory scrypt may use, in bytes.
    ///   - workspace: the memory scrypt works in (``KeystoreDecryptionPool`` keeps one per slot); by
    ///     default fresh memory, unmapped afterwards.
    /// - Throws: `KeyFormatError` `.wrongPassword` ("wrong password or corrupted file (MAC
    ///   mismatch)"), `.scryptMemoryLimit` (class `decryption`); `.zeroKey`/`.keyOutOfRange`
    ///   (class `validation`); `.addressMismatch` (class `mismatch`) when the `address` field is not the
    ///   key's address.
    public func decrypt(
        password: SecretBytes, maxScryptMemory: Int = Scrypt.defaultMaxMemory, workspace: Scrypt.Workspace? = nil
    ) throws(KeyFormatError) -> ParsedKey {
        try decrypt(derivedKey: deriveKey(password: password, maxScryptMemory: maxScryptMemory, workspace: workspace))
    }

    /// Two keystores with the same scrypt n and r, their keys derived together on this thread
    /// (`Scrypt.derivePair`, about the time of one), each then decrypted as `decrypt` does.
    ///
    /// - Returns: each keystore's key or error, in order.
    static func decryptPair(
        _ first: (keystore: EncryptedKeystore, password: SecretBytes),
        _ second: (keystore: EncryptedKeystore, password: SecretBytes), maxScryptMemory: Int,
        workspaces: (Scrypt.Workspace, Scrypt.Workspace)
    ) -> (Result<ParsedKey, KeyFormatError>, Result<ParsedKey, KeyFormatError>) {
        guard let firstRequest = first.keystore.scryptRequest(password: first.password),
            let secondRequest = second.keystore.scryptRequest(password: second.password),
            let keys = try? Scrypt.derivePair(
                firstRequest, secondRequest, maxMemory: maxScryptMemory, workspaces: workspaces)
        else {
            // Not a pair after all (derivePair refused them: other n or r, over the memory limit): one by one,
            // so each gets its own error.
            return (
                Result { () throws(KeyFormatError) in
                    try first.keystore.decrypt(
                        password: first.password, maxScryptMemory: maxScryptMemory, workspace: workspaces.0)
                },
                Result { () throws(KeyFormatError) in
                    try second.keystore.decrypt(
                        password: second.password, maxScryptMemory: maxScryptMemory, workspace: workspaces.1)
                }
            )
        }
        return (
            Result { () throws(KeyFormatError) in try first.keystore.decrypt(derivedKey: keys.0) },
            Result { () throws(KeyFormatError) in try second.keystore.decrypt(derivedKey: keys.1) }
        )
    }

    /// The scrypt derivation of this keystore with `password`; nil for PBKDF2.
    func scryptRequest(password: SecretBytes) -> Scrypt.Request? {
        guard case .scrypt(let n, let r, let p) = kdf else { return nil }
        return Scrypt.Request(password: password, salt: salt, n: n, r: r, p: p, length: derivedKeyLength)
    }

    /// The rest of `decrypt` once the KDF has run: the MAC check, the cipher, the key's checks.
    func decrypt(derivedKey derived: SecretBytes) throws(KeyFormatError) -> ParsedKey {
        guard macMatches(derived) else {
            throw KeyFormatError(.wrongPassword, "wrong password or corrupted file (MAC mismatch)")
        }
        let plaintext: SecretBytes
        do {
            switch version {
            case .v3:
                plaintext = try AESCTR.decrypt(ciphertext, key: firstHalf(derived), iv: iv)
            case .v1:
                plaintext = try AESCBC.decrypt(ciphertext, key: v1CipherKey(derived), iv: iv)
            }
        } catch {
            // Only reachable with a correct MAC and a malformed body (bad padding): say so plainly.
            throw KeyFormatError(.wrongPassword, "the MAC matches but the ciphertext does not decrypt to a key")
        }
        guard (1...32).contains(plaintext.count) else {
            throw KeyFormatError(
                .invalidKey, "the decrypted key is \(plaintext.count) bytes; a secp256k1 key has at most 32")
        }
        let key = try KeyParser.ethereum(secret: Self.leftPadded(plaintext))
        if let addressHint, case .ethereum(let ethereum) = key.privateKey, ethereum.ethereumAddress.bytes != addressHint
        {
            throw KeyFormatError(
                .addressMismatch,
                "the keystore's address field \(EthereumAddressText.normalized(addressHint)) does not match the decrypted key's address \(key.address)"
            )
        }
        return key
    }

    /// DK from the password as `kdf` says, refusing scrypt parameters above `maxScryptMemory`.
    func deriveKey(
        password: SecretBytes, maxScryptMemory: Int, workspace: Scrypt.Workspace? = nil
    ) throws(KeyFormatError) -> SecretBytes {
        do {
            switch kdf {
            case .scrypt(let n, let r, let p):
                guard kdfMemory <= maxScryptMemory else {
                    throw KeyFormatError(
                        .scryptMemoryLimit,
                        "scrypt n = \(n), r = \(r), p = \(p) needs \(Self.mebibytes(kdfMemory)) of memory, above the limit of \(Self.mebibytes(maxScryptMemory))"
                    )
                }
                return try Scrypt.derive(
                    password: password, salt: salt, n: n, r: r, p: p, length: derivedKeyLength,
                    maxMemory: maxScryptMemory, workspace: workspace)
            case .pbkdf2(let iterations):
                return try PBKDF2.sha256(
                    password: password, salt: salt, iterations: iterations, length: derivedKeyLength)
            }
        } catch let error as KeyFormatError {
            throw error
        } catch let error as CryptoError where error.code == .memoryLimitExceeded {
            throw KeyFormatError(.scryptMemoryLimit, "the KDF needs more memory than allowed")
        } catch {
            throw KeyFormatError(.invalidKeystoreParameter, "the KDF parameters were refused by the KDF")
        }
    }

    /// Whether keccak256(DK[16..<32] ++ ciphertext) equals the file's MAC, compared in constant time.
    func macMatches(_ derived: SecretBytes) -> Bool {
        var hasher = Keccak256.Hasher()
        derived.withUnsafeBytes { hasher.update(bytes: UnsafeRawBufferPointer(rebasing: $0[16..<32])) }
        ciphertext.withUnsafeBytes { hasher.update(bytes: $0) }
        var computed = hasher.finalize()
        defer { SecretBytes.wipe(&computed) }
        return constantTimeEquals(computed, mac)
    }

    /// DK[0..<16], the version 3 AES key.
    func firstHalf(_ derived: SecretBytes) -> SecretBytes {
        SecretBytes(count: 16) { out in
            derived.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<16])) }
        }
    }

    /// keccak256(DK[0..<16])[0..<16], geth's version 1 AES key.
    func v1CipherKey(_ derived: SecretBytes) -> SecretBytes {
        let digest = UnsafeMutableRawBufferPointer.allocate(byteCount: 32, alignment: 16)
        defer {
            SecretBytes.wipe(digest.baseAddress, byteCount: digest.count)
            digest.deallocate()
        }
        derived.withUnsafeBytes { Keccak256.hash(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<16]), into: digest) }
        return SecretBytes(count: 16) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: digest[0..<16])) }
    }

    /// `key` with zero bytes in front up to 32 bytes.
    static func leftPadded(_ key: SecretBytes) -> SecretBytes {
        guard key.count < 32 else { return key }
        return SecretBytes(count: 32) { out in
            key.withUnsafeBytes { raw in
                out.baseAddress!.advanced(by: 32 - raw.count).copyMemory(from: raw.baseAddress!, byteCount: raw.count)
            }
        }
    }

    static func mebibytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}
