import WalletCrypto

extension KeyParser {
    /// Validates `material` as a key of `type` written as `encoding`, exactly as
    /// ``parse(_:type:encoding:)`` does, but without deriving the address.
    ///
    /// Ethereum: the scalar is compared with the group order n (SEC 1 section 2.4) in constant time,
    /// with no scalar multiplication. Solana: a 32-byte seed is always valid; a 64-byte keypair is still
    /// derived once, to check that its public half is the one its seed derives (RFC 8032 section 5.1.5).
    ///
    /// - Throws: the `KeyFormatError`s of ``parse(_:type:encoding:)``.
    public static func validate(_ material: SecretBytes, type: KeyType, encoding: Encoding) throws(KeyFormatError)
        -> ValidatedSecret
    {
        try material.withUnsafeBytes { bytes in
            Result { () throws(KeyFormatError) -> ValidatedSecret in
                try validate(bytes: bytes, type: type, encoding: encoding)
            }
        }.get()
    }

    /// Validates the key in `bytes` without deriving its address (see ``validate(_:type:encoding:)``).
    public static func validate(bytes: UnsafeRawBufferPointer, type: KeyType, encoding: Encoding)
        throws(KeyFormatError) -> ValidatedSecret
    {
        switch (type, encoding) {
        case (.ethereum, .text): return try ethereumScalar(ethereumHex(bytes))
        case (.ethereum, .raw): return try ethereumScalar(raw(bytes, lengths: rawLengths(.ethereum), type: type))
        case (.solana, .text): return try solanaSecret(solanaBase58(bytes))
        case (.solana, .raw): return try solanaSecret(raw(bytes, lengths: rawLengths(.solana), type: type))
        }
    }

    /// Validates the key of an import as a request or an app hands it (OMS-REFERENCE "Import"), with the
    /// rules of ``validate(_:type:encoding:)``: written as `encoding` when the caller states it, else raw
    /// when its length is a raw key's (Ethereum 32 bytes, Solana 32 or 64) and text otherwise.
    ///
    /// Raw bytes are not refused for being printable: the form is stated by the sender, not guessed from
    /// a file. The core and the SDK validate through here, so both accept exactly what the reference does.
    ///
    /// - Throws: the `KeyFormatError`s of ``validate(_:type:encoding:)`` but `notRawBytes`.
    public static func validateImport(_ material: SecretBytes, type: KeyType, encoding: Encoding? = nil)
        throws(KeyFormatError) -> ValidatedSecret
    {
        let isRawLength = material.count == 32 || (type == .solana && material.count == 64)
        switch encoding ?? (isRawLength ? .raw : .text) {
        case .text:
            return try validate(material, type: type, encoding: .text)
        case .raw:
            // The bytes are the key as sent: kept, not copied.
            try checkRawLength(material.count, lengths: rawLengths(type), type: type)
            return type == .ethereum ? try ethereumScalar(material) : try solanaSecret(material)
        }
    }

    /// Checks `secret`'s address against `expected` (derives it: one scalar multiplication).
    ///
    /// - Throws: the errors of ``checkExpectedAddress(_:of:field:)``.
    public static func checkExpectedAddress(_ expected: String, of secret: ValidatedSecret) throws(KeyFormatError) {
        try checkExpectedAddress(expected, of: try secret.derived())
    }

    /// A 32-byte scalar checked to be in [1, n-1], without touching the curve.
    static func ethereumScalar(_ secret: SecretBytes) throws(KeyFormatError) -> ValidatedSecret {
        let (isZero, belowOrder) = secret.withUnsafeBytes { bytes in
            Self.scalarRange(bytes)
        }
        guard !isZero else {
            throw KeyFormatError(.zeroKey, "the key is zero; a secp256k1 key must be in [1, n-1]")
        }
        guard belowOrder else {
            throw KeyFormatError(
                .keyOutOfRange, "the key is not below the secp256k1 group order n; it must be in [1, n-1]")
        }
        return ValidatedSecret(type: .ethereum, secret: secret)
    }

    /// Whether the 32 big-endian bytes are zero and whether they are below n; the same work for every
    /// key (no early exit), so the time says nothing about the key.
    static func scalarRange(_ bytes: UnsafeRawBufferPointer) -> (isZero: Bool, belowOrder: Bool) {
        precondition(bytes.count == 32)
        var any: UInt8 = 0
        var borrow: UInt16 = 0
        let order = Secp256k1.curveOrder
        // key - n from the least significant byte: a final borrow means key < n.
        for index in stride(from: 31, through: 0, by: -1) {
            let byte = bytes[index]
            any |= byte
            let difference = UInt16(byte) &- UInt16(order[index]) &- borrow
            borrow = (difference >> 8) & 1
        }
        return (any == 0, borrow == 1)
    }

    /// A Solana seed, or the seed of a 64-byte keypair whose halves agree.
    static func solanaSecret(_ secret: SecretBytes) throws(KeyFormatError) -> ValidatedSecret {
        if secret.count == 32 { return ValidatedSecret(type: .solana, secret: secret) }
        return ValidatedSecret(try solana(secret: secret))
    }
}
