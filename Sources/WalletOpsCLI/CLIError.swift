import Jobs
import TextFormats

/// An error a command reports to the user: a message and the exit code it maps to.
///
/// Printed to standard error as `Error: <message>`; a ``Code/usage`` error is followed by the
/// command's usage line and a pointer to its help. Messages say what is wrong and where, and never
/// contain secret material (a key, a password). Two errors are equal when their codes are equal.
/// See ``ExitCode`` for the full convention.
public struct CLIError: CodedError, Sendable {
    /// The kind of error, which decides the exit code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The process exit status for this kind of error.
        public let exitCode: ExitCode
        private let name: String

        private init(_ name: String, _ exitCode: ExitCode) {
            self.name = name
            self.exitCode = exitCode
        }

        /// The command ran and failed (exit 1).
        public static let failure = Code("failure", .failure)
        /// The command was stopped (exit 2).
        public static let aborted = Code("aborted", .aborted)
        /// The command line is wrong (exit 64).
        public static let usage = Code("usage", .usage)
        /// An input is malformed (exit 65).
        public static let dataError = Code("dataError", .dataError)
        /// An input file does not exist (exit 66).
        public static let noInput = Code("noInput", .noInput)
        /// An unexpected internal error (exit 70).
        public static let internalError = Code("internalError", .internalError)
        /// A file could not be read or written (exit 74).
        public static let ioError = Code("ioError", .ioError)
        /// A temporary condition; retrying may succeed (exit 75).
        public static let temporaryFailure = Code("temporaryFailure", .temporaryFailure)

        public var description: String { name }
    }

    /// The kind of error.
    public let code: Code
    /// What went wrong, for the user; never contains secrets.
    public let message: String
    /// The error that caused this one, if any (its description must be secret-free too).
    public let underlying: (any Error & Sendable)?

    /// An error of kind `code` with `message`.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// A usage error (exit 64).
    public static func usage(_ message: String) -> CLIError { CLIError(.usage, message) }
    /// A malformed-input error (exit 65).
    public static func dataError(_ message: String) -> CLIError { CLIError(.dataError, message) }
    /// An I/O error (exit 74).
    public static func ioError(_ message: String) -> CLIError { CLIError(.ioError, message) }

    /// The exit code this error maps to.
    public var exitCode: ExitCode { code.exitCode }
}

extension CLIError {
    /// The error of a step that could not be made into an action: a usage error (exit 64), or the code of
    /// the file it names (66 missing, 74 unreadable, 65 malformed).
    init(_ error: ActionSetupError) {
        let code: Code =
            switch error.inputProblem {
            case nil: .usage
            case .missing: .noInput
            case .unreadable: .ioError
            case .invalidData: .dataError
            }
        self.init(code, error.message, underlying: error)
    }
}
