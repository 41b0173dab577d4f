/// One record of an input, validated without deriving an address: where it came from and either the
/// secret or why it was refused (see ``ValidatedSecret``).
public struct SecretRecord: Sendable {
    /// The data row number (CSV, 1-based, blank lines not counted) or the file name (directories).
    public let source: String
    /// The input file's path (the CSV file, or the key file in a directory).
    public let file: String
    /// The 1-based line where the record starts (CSV only).
    public let line: Int?
    /// The wallet reference: the `reference` cell, or the file name without its extension; nil when absent.
    public let reference: String?
    /// The `subject` cell of a CSV row (the user whose account receives the key); nil when absent.
    public let subject: String?
    /// The validated secret, or why the record was refused (located at `source`, `file`, `line`).
    public let result: Result<ValidatedSecret, KeyFormatError>

    /// A record; `result`'s error should already be located.
    public init(
        source: String, file: String, line: Int? = nil, reference: String?, subject: String? = nil,
        result: Result<ValidatedSecret, KeyFormatError>
    ) {
        self.source = source
        self.file = file
        self.line = line
        self.reference = reference
        self.subject = subject
        self.result = result
    }

    /// The record of a key already derived (directory formats and keystores), keeping its secret only.
    public init(_ record: KeyRecord) {
        self.init(
            source: record.source, file: record.file, line: record.line, reference: record.reference,
            result: record.result.map(ValidatedSecret.init))
    }
}
