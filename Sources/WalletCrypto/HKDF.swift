import Foundation

/// HKDF with HMAC-SHA256 (RFC 5869): extract, expand, or both.
public enum HKDF {
    /// SHA-256 output size, the size of a pseudorandom key.
    public static let hashSize = 32
    /// The longest output `expand` can give: 255 blocks.
    public static let maximumLength = 255 * hashSize

    /// HKDF-Extract: PRK = HMAC-SHA256(salt, IKM). An empty salt stands for 32 zero bytes.
    public static func extract(salt: some ContiguousBytes, inputKeyMaterial: SecretBytes) -> SecretBytes {
        withInputBytes(salt) { saltPointer, saltCount in
            withSecretBytes(inputKeyMaterial) { ikm, ikmCount in
                extract(salt: saltPointer, saltCount, ikm: [(ikm, ikmCount)])
            }
        }
    }

    /// HKDF-Expand: `length` bytes of OKM from a pseudorandom key and `info`.
    ///
    /// - Throws: `CryptoError.invalidParameter` when `length` exceeds 8160 bytes, or the PRK is shorter than 32 bytes.
    public static func expand(pseudoRandomKey: SecretBytes, info: some ContiguousBytes, length: Int) throws
        -> SecretBytes
    {
        guard pseudoRandomKey.count >= hashSize else {
            throw CryptoError(.invalidParameter, "HKDF-Expand: the pseudorandom key must be at least 32 bytes")
        }
        return try withInputBytes(info) { infoPointer, infoCount in
            try expand(prk: pseudoRandomKey, info: [(infoPointer, infoCount)], length: length)
        }
    }

    /// HKDF: extract then expand.
    ///
    /// - Throws: `CryptoError.invalidParameter` when `length` exceeds 8160 bytes.
    public static func deriveKey(
        inputKeyMaterial: SecretBytes, salt: some ContiguousBytes, info: some ContiguousBytes, length: Int
    ) throws -> SecretBytes {
        try expand(pseudoRandomKey: extract(salt: salt, inputKeyMaterial: inputKeyMaterial), info: info, length: length)
    }

    /// Extract over the concatenation of `ikm` pieces (HPKE's labeled extract builds its input this way).
    static func extract(salt: UnsafePointer<UInt8>, _ saltCount: Int, ikm: [(UnsafePointer<UInt8>, Int)])
        -> SecretBytes
    {
        var zeros = [UInt8](repeating: 0, count: hashSize)
        var prk =
            saltCount == 0
            ? HMAC.compute(.sha256, key: &zeros, hashSize, data: ikm)
            : HMAC.compute(.sha256, key: salt, saltCount, data: ikm)
        defer { SecretBytes.wipe(&prk) }
        return SecretBytes(prk)
    }

    /// Expand with `info` given as the concatenation of pieces.
    static func expand(prk: SecretBytes, info: [(UnsafePointer<UInt8>, Int)], length: Int) throws -> SecretBytes {
        guard length >= 0, length <= maximumLength else {
            throw CryptoError(.invalidParameter, "HKDF-Expand: length \(length) is outside 0...\(maximumLength)")
        }
        return withSecretBytes(prk) { key, keyCount in
            SecretBytes(count: length) { out in
                var previous: [UInt8] = []
                defer { SecretBytes.wipe(&previous) }
                var offset = 0
                var counter: UInt8 = 1
                while offset < length {
                    let block = previous.withUnsafeBufferPointer { prev in
                        withUnsafePointer(to: counter) { counterPointer in
                            var pieces = [(UnsafePointer<UInt8>, Int)]()
                            if let base = prev.baseAddress, prev.count > 0 { pieces.append((base, prev.count)) }
                            pieces += info
                            pieces.append((counterPointer, 1))
                            return HMAC.compute(.sha256, key: key, keyCount, data: pieces)
                        }
                    }
                    let take = min(hashSize, length - offset)
                    for i in 0..<take { out[offset + i] = block[i] }
                    offset += take
                    counter &+= 1
                    SecretBytes.wipe(&previous)
                    previous = block
                }
            }
        }
    }
}
