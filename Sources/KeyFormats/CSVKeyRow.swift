public import WalletCrypto

/// One data row of a key CSV before validation: the key cell already in secret storage, the other
/// cells as text (they are not secret).
public struct CSVKeyRow: Sendable {
    /// The 1-based data row number (the header and blank lines are not counted).
    public let row: Int
    /// The 1-based line of the file where the row starts.
    public let line: Int
    /// The CSV file's path.
    public let file: String
    /// The bytes of the `private_key` cell, as written (hex or base58 text), quotes removed.
    public let privateKey: SecretBytes
    /// The `reference` cell; nil when the column is absent or the cell is empty.
    public let reference: String?
    /// The `type` cell as written; nil when absent or empty.
    public let type: String?
    /// The `expected_address` cell; nil when absent or empty.
    public let expectedAddress: String?
    /// The `subject` cell (the user whose account receives the key); nil when absent or empty.
    public let subject: String?
    /// A structural problem of this row (ragged, malformed quote, oversize cell), which refuses it.
    public let problem: KeyFormatError?

    /// The row number as the rejects file's `source`.
    public var source: String { String(row) }

    /// Validates the row: structure, type (the cell, else `defaultType`), reference, key, and the
    /// expected address when given. Errors are located at this row.
    public func parse(defaultType: KeyType?) -> KeyRecord {
        KeyRecord(
            source: source, file: file, line: line, reference: reference,
            result: Result { () throws(KeyFormatError) -> ParsedKey in try validate(defaultType: defaultType) }
                .mapError { $0.located(source: source, file: file, line: line) })
    }

    /// Validates the row like ``parse(defaultType:)`` but derives no address unless the row has an
    /// `expected_address` to check (see ``ValidatedSecret``).
    public func validated(defaultType: KeyType?) -> SecretRecord {
        SecretRecord(
            source: source, file: file, line: line, reference: reference, subject: subject,
            result: Result { () throws(KeyFormatError) -> ValidatedSecret in
                let keyType = try checkCells(defaultType: defaultType)
                let secret = try KeyParser.validate(privateKey, type: keyType, encoding: .text)
                if let expectedAddress { try KeyParser.checkExpectedAddress(expectedAddress, of: secret) }
                return secret
            }.mapError { $0.located(source: source, file: file, line: line) })
    }

    /// The row's structure, type and reference checked; its key type.
    private func checkCells(defaultType: KeyType?) throws(KeyFormatError) -> KeyType {
        if let problem { throw problem }
        let keyType: KeyType
        if let cell = type {
            guard let parsed = KeyType(cell: cell) else {
                throw KeyFormatError(.unknownType, "the type cell must be ethereum (or evm) or solana")
            }
            keyType = parsed
        } else if let defaultType {
            keyType = defaultType
        } else {
            throw KeyFormatError(.unknownType, "no type: the row has no type cell and no default type was given")
        }
        if let reference { try KeyParser.validateReference(reference) }
        return keyType
    }

    private func validate(defaultType: KeyType?) throws(KeyFormatError) -> ParsedKey {
        let keyType = try checkCells(defaultType: defaultType)
        let key = try KeyParser.parse(privateKey, type: keyType, encoding: .text)
        if let expectedAddress { try KeyParser.checkExpectedAddress(expectedAddress, of: key) }
        return key
    }
}
