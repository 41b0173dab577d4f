/// A problem reading an input file, naming the file and the line (and row, for CSV).
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as given.
    public var file: String
    /// The 1-based line where the problem is, if known.
    public var line: Int?
    /// The 1-based data row (CSV records after the header), if known.
    public var row: Int?
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int? = nil, row: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.row = row
        self.message = message
    }

    /// `file:line: row N: message`.
    public var description: String {
        var out = file
        if let line { out += ":\(line)" }
        out += ": "
        if let row { out += "row \(row): " }
        return out + message
    }
}
