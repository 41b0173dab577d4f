import TextFormats
public import WalletCrypto

/// Single-file key formats: raw key bytes, one text key, and the Solana CLI keypair JSON.
public enum KeyFile {
    /// The format of one key file.
    public enum Format: Sendable, Hashable {
        /// 32 raw bytes (Ethereum scalar, Solana seed) or 64 (Solana keypair).
        case raw(KeyType)
        /// One text key: hex (Ethereum) or base58 (Solana), surrounding whitespace allowed.
        case text(KeyType)
        /// The Solana CLI keypair file: a JSON array of 64 numbers 0-255 (seed || public key).
        case solanaKeypairJSON
    }

    /// Key files larger than this are refused before parsing (no key format comes close).
    public static let maximumFileBytes = 4096

    /// Reads and validates the key file at `path`: a record whose source is the file name and whose
    /// reference is `reference` (a directory's: ``DirectoryListing/Entry/reference``), else the name's
    /// (``DirectoryListing/defaultReference(forFileName:)``); refused when longer than 128 UTF-8 bytes.
    public static func read(path: String, format: Format, reference: String? = nil) -> KeyRecord {
        let (name, reference, result) = readFile(path: path, reference: reference) { bytes throws(KeyFormatError) in
            try parse(bytes, format: format)
        }
        return KeyRecord(source: name, file: path, reference: reference, result: result)
    }

    /// Reads and validates the key file at `path` like ``read(path:format:reference:)``, without deriving an
    /// address where the format does not need one (raw and text keys; a keypair file is still derived
    /// once to check its halves agree).
    public static func readSecret(path: String, format: Format, reference: String? = nil) -> SecretRecord {
        let (name, reference, result) = readFile(path: path, reference: reference) { bytes throws(KeyFormatError) in
            try validate(bytes, format: format)
        }
        return SecretRecord(source: name, file: path, reference: reference, result: result)
    }

    /// The file's name, its reference (`reference`, else the name's), and what `body` makes of its bytes
    /// once the reference is valid, with a refusal located at the file: the one reading of both records.
    private static func readFile<Value>(
        path: String, reference: String?, _ body: (SecretBytes) throws(KeyFormatError) -> Value
    ) -> (name: String, reference: String, result: Result<Value, KeyFormatError>) {
        let name = DirectoryListing.fileName(of: path)
        let reference = reference ?? DirectoryListing.defaultReference(forFileName: name)
        let result = Result { () throws(KeyFormatError) -> Value in
            try KeyParser.validateReference(reference)
            return try body(FileInput(path: path).readAll(limit: maximumFileBytes))
        }
        return (name, reference, result.mapError { $0.located(source: name, file: path) })
    }

    /// The format of a key file of `type` whose format is not stated: raw when it has a raw key's length
    /// (Ethereum 32 bytes, Solana 32 or 64) and is not all text, the Solana keypair JSON when a Solana
    /// file's first byte after ASCII whitespace is `[`, else one text key.
    ///
    /// Text of a raw key's length is text: a truncated text key plus a newline is reported as such
    /// instead of being imported as key bytes.
    public static func format(of contents: SecretBytes, type: KeyType) -> Format {
        contents.withUnsafeBytes { bytes in
            if KeyParser.rawLengths(type).contains(bytes.count) && !KeyParser.isText(bytes) { return .raw(type) }
            if type == .solana, ASCII.trimmed(bytes).first == 0x5B { return .solanaKeypairJSON }  // "["
            return .text(type)
        }
    }

    /// Validates the contents of a key file written as `format` and derives the key's address.
    ///
    /// - Throws: the `KeyFormatError`s of ``KeyParser/parse(_:type:encoding:)`` and
    ///   ``solanaKeypairJSON(_:)``.
    public static func parse(_ contents: SecretBytes, format: Format) throws(KeyFormatError) -> ParsedKey {
        switch format {
        case .raw(let type): try KeyParser.parse(contents, type: type, encoding: .raw)
        case .text(let type): try KeyParser.parse(contents, type: type, encoding: .text)
        case .solanaKeypairJSON: try KeyParser.solana(secret: solanaKeypairJSON(contents))
        }
    }

    /// Validates the contents of a key file written as `format` like ``parse(_:format:)``, without
    /// deriving an address where the format does not need one (a keypair is derived to check its halves).
    ///
    /// - Throws: the `KeyFormatError`s of ``parse(_:format:)``.
    public static func validate(_ contents: SecretBytes, format: Format) throws(KeyFormatError) -> ValidatedSecret {
        switch format {
        case .raw(let type): try KeyParser.validate(contents, type: type, encoding: .raw)
        case .text(let type): try KeyParser.validate(contents, type: type, encoding: .text)
        case .solanaKeypairJSON: try KeyParser.solanaSecret(solanaKeypairJSON(contents))
        }
    }

    /// The 64 bytes of a Solana CLI keypair file: `[n, n, ...]`, 64 integers 0-255, any JSON
    /// whitespace; the digits are read straight into secret storage.
    ///
    /// - Throws: `KeyFormatError` `.malformedJSON` (class `format`) or `.wrongLength` (class
    ///   `validation`); the public half is checked by ``KeyParser``.
    public static func solanaKeypairJSON(_ contents: SecretBytes) throws(KeyFormatError) -> SecretBytes {
        try contents.withUnsafeBytes { raw in
            Result { () throws(KeyFormatError) -> SecretBytes in try solanaKeypairJSON(bytes: raw) }
        }.get()
    }

    static func solanaKeypairJSON(bytes raw: UnsafeRawBufferPointer) throws(KeyFormatError) -> SecretBytes {
        var index = 0
        func skipSpace() { while index < raw.count, ASCII.isWhitespace(raw[index]) { index += 1 } }
        func malformed(_ what: String) -> KeyFormatError {
            KeyFormatError(.malformedJSON, "not a Solana keypair file (a JSON array of 64 numbers 0-255): \(what)")
        }
        skipSpace()
        guard index < raw.count, raw[index] == 0x5B else { throw malformed("it does not start with [") }
        index += 1
        var count = 0
        var result: KeyFormatError?
        let secret = SecretBytes(count: 64) { out in
            skipSpace()
            if index < raw.count, raw[index] == 0x5D {
                index += 1
                return
            }
            while result == nil {
                skipSpace()
                var value = 0
                var digits = 0
                let start = index
                while index < raw.count, (0x30...0x39).contains(raw[index]) {
                    value = value * 10 + Int(raw[index] - 0x30)
                    digits += 1
                    index += 1
                    if digits > 3 { break }
                }
                // JSON numbers have no leading zeros ("07" is not a number).
                guard digits >= 1, digits <= 3, value <= 255, !(digits > 1 && raw[start] == 0x30) else {
                    result = malformed("item \(count + 1) is not an integer from 0 to 255")
                    return
                }
                if count < 64 { out[count] = UInt8(value) }
                count += 1
                skipSpace()
                guard index < raw.count else {
                    result = malformed("the array is not closed with ]")
                    return
                }
                if raw[index] == 0x2C {
                    index += 1
                    continue
                }
                if raw[index] == 0x5D {
                    index += 1
                    return
                }
                result = malformed("expected , or ] after item \(count)")
            }
        }
        if let result { throw result }
        skipSpace()
        guard index == raw.count else { throw malformed("there is text after the closing ]") }
        guard count == 64 else {
            throw KeyFormatError(
                .wrongLength, "the keypair array has \(count) numbers; expected 64 (seed || public key)")
        }
        return secret
    }
}
