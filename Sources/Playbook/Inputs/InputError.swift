/// A problem reading an input file, naming the file and the line (and row, for CSV).
/// What is wrong with an input, as the exit code tells it (sysexits): it is not there (66,
/// `EX_NOINPUT`), it cannot be read (74, `EX_IOERR`), or its data is bad (65, `EX_DATAERR`).
public enum InputProblem: Sendable, Hashable {
    case missing
    case unreadable
    case invalidData
}

/// An error that may be an input's problem: a run that stops on it exits with the problem's code.
public protocol InputProblemReporting: Error {
    /// The input's problem, nil when the error is about something else.
    var inputProblem: InputProblem? { get }
}

public struct InputError: Error, Sendable, Hashable, CustomStringConvertible, InputProblemReporting {
    /// The file as given.
    public var file: String
    /// The 1-based line where the problem is, if known.
    public var line: Int?
    /// The 1-based data row (CSV records after the header), if known.
    public var row: Int?
    /// What is wrong.
    public var message: String
    /// The kind of problem (bad data unless the file is missing or unreadable).
    public var problem: InputProblem

    /// Creates an error.
    public init(file: String, line: Int? = nil, row: Int? = nil, message: String, problem: InputProblem = .invalidData)
    {
        self.file = file
        self.line = line
        self.row = row
        self.message = message
        self.problem = problem
    }

    public var inputProblem: InputProblem? { problem }

    /// `file:line: row N: message`.
    public var description: String {
        var out = file
        if let line { out += ":\(line)" }
        out += ": "
        if let row { out += "row \(row): " }
        return out + message
    }
}
