import KeyFormats
import Playbook
import Runner
import TextFormats

/// A failure of an operator job: what went wrong and what to do, never key material.
///
/// Equal by code, like the other public errors of the project.
public struct JobsError: CodedError, Sendable, InputProblemReporting,
    ActionErrorConvertible
{
    /// The kind of failure.
    public enum Code: String, Sendable {
        /// No credential is stored in the home, or it belongs to another core.
        case notSignedIn
        /// The stored credential has expired (treated as expired 30 s early).
        case sessionExpired
        /// The stored credential file cannot be read or does not decode.
        case invalidCredential
        /// The home holds no core, or no project of the given name.
        case noCore
        /// A document could not be fetched over HTTP (the core or issuer is unreachable).
        case fetchFailed
        /// A sign-in input (an ID token file, a one-time code) is unusable.
        case invalidInput
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong, for the operator.
    public let message: String
    /// What is wrong with the job's input file, when that is the failure (the run's exit code: 65, 66, 74).
    public let inputProblem: InputProblem?

    /// A failure of kind `code` with `message`.
    public init(_ code: Code, _ message: String, inputProblem: InputProblem? = nil) {
        self.code = code
        self.message = message
        self.inputProblem = inputProblem
    }

    /// The job's input `input` failed to open or read with `error`.
    static func input(_ input: String, _ error: KeyFormatError) -> JobsError {
        let problem: InputProblem
        switch error.code {
        case .fileNotFound: problem = .missing
        case .readFailed, .notAFile: problem = .unreadable
        default: problem = .invalidData
        }
        return JobsError(.invalidInput, "input \(input): \(error)", inputProblem: problem)
    }

    /// Whether the failure is the sign-in's (not signed in, expired, unreadable credential): a run stops at
    /// once on it (``Runner/RunStopCause/unauthorized``), as every later request would be refused alike.
    public var isSignInRefused: Bool { [.notSignedIn, .sessionExpired, .invalidCredential].contains(code) }

    /// The engine's view: a refused sign-in stops the run; anything else is permanent.
    public var actionError: ActionError {
        isSignInRefused ? ActionError.unauthorized(message) : ActionError.permanent(message)
    }
}
