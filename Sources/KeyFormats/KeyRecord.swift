/// One record of an input, parsed: where it came from and either the key or why it was refused.
///
/// A refused record does not stop the reader; the import job writes it to its rejects file as
/// `source,reason,error_class` (``KeyFormatError/reason``, ``KeyFormatError/errorClass``).
public struct KeyRecord: Sendable {
    /// The data row number (CSV, 1-based, blank lines not counted) or the file name (directories).
    public let source: String
    /// The input file's path (the CSV file, or the key file in a directory).
    public let file: String
    /// The 1-based line where the record starts (CSV only).
    public let line: Int?
    /// The wallet reference: the `reference` cell, or the file name without its extension; nil when absent.
    public let reference: String?
    /// The validated key, or why the record was refused (located at `source`, `file`, `line`).
    public let result: Result<ParsedKey, KeyFormatError>

    /// A record; `result`'s error should already be located.
    public init(
        source: String, file: String, line: Int? = nil, reference: String?, result: Result<ParsedKey, KeyFormatError>
    ) {
        self.source = source
        self.file = file
        self.line = line
        self.reference = reference
        self.result = result
    }
}
