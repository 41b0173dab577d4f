/// The exit codes of `walletops`, one convention for every command.
///
/// | code | name | meaning |
/// |---|---|---|
/// | 0 | `success` | the command did what it was asked |
/// | 1 | `failure` | the command ran but the outcome is a failure (e.g. some items of a run failed) |
/// | 2 | `aborted` | the command was stopped before it finished (signal, user declined a prompt) |
/// | 64 | `usage` | the command line is wrong: unknown option, missing value or argument, bad value (`EX_USAGE`) |
/// | 65 | `dataError` | an input file is malformed: a key file, a playbook, a CSV (`EX_DATAERR`) |
/// | 70 | `internalError` | a bug: an error the command did not expect (`EX_SOFTWARE`) |
/// | 74 | `ioError` | a file could not be read or written (`EX_IOERR`) |
/// | 75 | `temporaryFailure` | try again later: a lock is held, the core is unreachable (`EX_TEMPFAIL`) |
///
/// The 64–75 values are those of BSD `sysexits.h`, so shell scripts can tell a mistake in the
/// command line (fix the script) from bad data (fix the input) from a temporary condition (retry).
public struct ExitCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The process exit status.
    public let rawValue: Int32

    /// The exit code with status `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 0: the command did what it was asked.
    public static let success = ExitCode(rawValue: 0)
    /// 1: the command ran and its outcome is a failure.
    public static let failure = ExitCode(rawValue: 1)
    /// 2: the command was stopped before it finished.
    public static let aborted = ExitCode(rawValue: 2)
    /// 64 (`EX_USAGE`): the command line is wrong.
    public static let usage = ExitCode(rawValue: 64)
    /// 65 (`EX_DATAERR`): an input file is malformed.
    public static let dataError = ExitCode(rawValue: 65)
    /// 70 (`EX_SOFTWARE`): an unexpected internal error.
    public static let internalError = ExitCode(rawValue: 70)
    /// 66 (`EX_NOINPUT`): an input file or directory does not exist.
    public static let noInput = ExitCode(rawValue: 66)
    /// 74 (`EX_IOERR`): a file could not be read or written.
    public static let ioError = ExitCode(rawValue: 74)
    /// 75 (`EX_TEMPFAIL`): a temporary condition such as a held lock; retrying may succeed.
    public static let temporaryFailure = ExitCode(rawValue: 75)

    public var description: String { String(rawValue) }
}
