import TextFormats
public import WalletCrypto

/// Validates private keys exactly as the OMS import rules state, without ever putting key bytes in
/// a `String` or an error.
///
/// - Ethereum: 32 raw bytes, or 64 hex digits with an optional `0x`; ASCII whitespace around text is
///   trimmed; the scalar must be in [1, n-1] (SEC 1 section 2.4, n the secp256k1 group order).
/// - Solana: a 32-byte seed or a 64-byte keypair (seed || public key), raw or base58; a keypair's
///   public half must be the one its seed derives (RFC 8032 section 5.1.5); base58 text of exactly
///   32 or 64 characters is refused as ambiguous with raw bytes and hex.
/// - References: at most 128 UTF-8 bytes.
///
/// Every intermediate buffer that holds key bytes is wiped before returning.
public enum KeyParser {
    /// How key bytes are written.
    public enum Encoding: Sendable, Hashable {
        /// Text: hex (Ethereum) or base58 (Solana), with surrounding ASCII whitespace.
        case text
        /// The key bytes themselves: 32 (Ethereum, Solana seed) or 64 (Solana keypair).
        case raw
    }

    /// The longest reference accepted, in UTF-8 bytes.
    public static let maximumReferenceBytes = 128

    /// base58 of 64 bytes is at most 88 characters; longer text is refused before decoding.
    static let maximumBase58Characters = 88

    /// Validates `material` as a key of `type` written as `encoding`.
    ///
    /// - Throws: `KeyFormatError` with a `validation` code (`emptyKey`, `wrongLength`, `notHex`,
    ///   `notBase58`, `ambiguousBase58`, `notRawBytes`, `zeroKey`, `keyOutOfRange`, `keypairMismatch`).
    public static func parse(_ material: SecretBytes, type: KeyType, encoding: Encoding) throws(KeyFormatError)
        -> ParsedKey
    {
        // withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
        try material.withUnsafeBytes { bytes in
            Result { () throws(KeyFormatError) -> ParsedKey in try parse(bytes: bytes, type: type, encoding: encoding) }
        }.get()
    }

    /// Validates the key in `bytes` (borrowed, not copied beyond wiped scratch buffers).
    public static func parse(bytes: UnsafeRawBufferPointer, type: KeyType, encoding: Encoding) throws(KeyFormatError)
        -> ParsedKey
    {
        switch (type, encoding) {
        case (.ethereum, .text): return try ethereum(secret: ethereumHex(bytes))
        case (.ethereum, .raw): return try ethereum(secret: raw(bytes, lengths: rawLengths(.ethereum), type: type))
        case (.solana, .text): return try solana(secret: solanaBase58(bytes))
        case (.solana, .raw): return try solana(secret: raw(bytes, lengths: rawLengths(.solana), type: type))
        }
    }

    /// Refuses a reference longer than ``maximumReferenceBytes`` UTF-8 bytes or holding a NUL byte (the
    /// core refuses both).
    ///
    /// - Throws: `KeyFormatError` `.referenceTooLong` or `.invalidReference` (class `validation`).
    public static func validateReference(_ reference: String) throws(KeyFormatError) {
        let count = reference.utf8.count
        guard count <= maximumReferenceBytes else {
            throw KeyFormatError(
                .referenceTooLong,
                "the reference is \(count) UTF-8 bytes, more than the \(maximumReferenceBytes) allowed")
        }
        for (offset, byte) in reference.utf8.enumerated() where byte == 0 {
            throw KeyFormatError(
                .invalidReference,
                "the reference holds a NUL byte at byte \(offset)")
        }
    }

    /// Checks that `key` has the address `expected`: for Ethereum `0x` (optional) and 40 hex digits in
    /// any case (no EIP-55 checksum required), for Solana the exact base58 text.
    ///
    /// - Throws: `KeyFormatError` `.invalidExpectedAddress` (class `validation`) when `expected` is not
    ///   an address of the key's type, or `.expectedAddressMismatch` (class `mismatch`).
    public static func checkExpectedAddress(_ expected: String, of key: ParsedKey, field: String = "expected_address")
        throws(KeyFormatError)
    {
        let trimmed = expected.trimmingASCIIWhitespace()
        switch key.privateKey {
        case .ethereum(let ethereum):
            guard let bytes = ethereumAddressBytes(trimmed) else {
                throw KeyFormatError(
                    .invalidExpectedAddress, "\(field) is not an Ethereum address (0x and 40 hex digits)")
            }
            guard bytes == ethereum.ethereumAddress.bytes else {
                throw KeyFormatError(
                    .expectedAddressMismatch,
                    "the key's address \(key.address) does not match \(field) \(EthereumAddressText.normalized(bytes))")
            }
        case .solana(let solana):
            guard let decoded = try? Base58.decode(trimmed), decoded.count == 32 else {
                throw KeyFormatError(
                    .invalidExpectedAddress, "\(field) is not a Solana address (base58 of 32 bytes)")
            }
            // The expected text is not echoed: 32 bytes of base58 could be a seed in the wrong column.
            guard decoded == solana.publicKey.rawRepresentation else {
                throw KeyFormatError(
                    .expectedAddressMismatch, "the key's address \(key.address) does not match \(field)")
            }
        }
    }

    /// The 20 bytes of `0x` (optional) + 40 hex digits, any case; nil otherwise.
    static func ethereumAddressBytes(_ text: String) -> [UInt8]? {
        var utf8 = Array(text.utf8)[...]
        if utf8.count >= 2, utf8[utf8.startIndex] == 0x30, utf8[utf8.startIndex + 1] | 0x20 == 0x78 {
            utf8 = utf8.dropFirst(2)
        }
        guard utf8.count == 40 else { return nil }
        var out = [UInt8](repeating: 0, count: 20)
        for i in 0..<20 {
            guard let high = ASCII.hexValue(utf8[utf8.startIndex + 2 * i]),
                let low = ASCII.hexValue(utf8[utf8.startIndex + 2 * i + 1])
            else { return nil }
            out[i] = high << 4 | low
        }
        return out
    }

    // MARK: - Curves

    /// A secp256k1 key from a 32-byte secret, with the reasons the reference names.
    static func ethereum(secret: SecretBytes) throws(KeyFormatError) -> ParsedKey {
        do {
            return ParsedKey(ethereum: try Secp256k1.PrivateKey(secret))
        } catch {
            switch error.code {
            case .privateKeyIsZero:
                throw KeyFormatError(.zeroKey, "the key is zero; a secp256k1 key must be in [1, n-1]")
            case .privateKeyOutOfRange:
                throw KeyFormatError(
                    .keyOutOfRange, "the key is not below the secp256k1 group order n; it must be in [1, n-1]")
            default:
                throw KeyFormatError(.invalidKey, "the key is not a valid secp256k1 private key")
            }
        }
    }

    /// An Ed25519 key from a 32-byte seed or a 64-byte keypair whose halves must agree.
    static func solana(secret: SecretBytes) throws(KeyFormatError) -> ParsedKey {
        do {
            if secret.count == 32 { return ParsedKey(solana: try Ed25519.PrivateKey(seed: secret)) }
            return ParsedKey(solana: try Ed25519.PrivateKey(keypair: secret))
        } catch {
            if error.code == .keypairMismatch {
                throw KeyFormatError(
                    .keypairMismatch,
                    "the public half of the 64-byte keypair does not match the public key derived from its seed")
            }
            throw KeyFormatError(.invalidKey, "the key is not a valid Ed25519 seed or keypair")
        }
    }
}

/// Formatting of public addresses in messages.
enum EthereumAddressText {
    /// `0x` + EIP-55 of 20 bytes (falls back to lowercase hex if the bytes are not an address).
    static func normalized(_ bytes: [UInt8]) -> String {
        (try? EthereumAddress(bytes: bytes))?.checksummed ?? Base16.encodePrefixed(bytes)
    }
}
