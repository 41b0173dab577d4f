/// How an action's failure is treated.
public enum ErrorClass: String, Sendable, Hashable, CaseIterable {
    /// Worth another attempt: transport errors, HTTP 429, 5xx, a busy database.
    case retryable
    /// Retrying cannot help: validation errors, HTTP 4xx.
    case permanent
    /// The request was sent and no answer came back: it may or may not have taken effect. Resolved by
    /// the action's probe before any retry.
    case inDoubt
}

/// Why an action's failure stops the whole run instead of failing its item: every later item would
/// fail the same way, so the run stops at once and leaves the item to a resume.
public enum RunStopCause: String, Sendable, Hashable {
    /// A service the action needs cannot be reached (a served core that is down): retried by the step's
    /// policy first; the run ends interrupted, exit 75 (retry later).
    case unavailable
    /// The action's sign-in is not accepted (not signed in, the session expired): no retry can help until
    /// the operator signs in again, so none is made; the run ends interrupted, exit 1.
    case unauthorized
}

/// An error of a layer above the engine that knows how the engine should treat it (a job's own error
/// type), so an action need not wrap every call that may throw it.
public protocol ActionErrorConvertible: Error {
    /// The engine's view of this error.
    var actionError: ActionError { get }
}

/// The error an action throws to say how its failure should be handled.
///
/// Errors of other types are treated as ``ErrorClass/permanent`` (a bug or an unexpected condition
/// should not be hammered), except `CancellationError` during a stop, which leaves the item unfinished.
public struct ActionError: Error, Sendable, CustomStringConvertible {
    /// The class that decides retry.
    public var errorClass: ErrorClass
    /// What went wrong, for the checkpoint and the report. Must not contain secrets (the engine also
    /// redacts the item's secret fields from it).
    public var message: String
    /// When set, the item is reported as rejected (bad input, a rejects-file entry) rather than failed,
    /// and never retried.
    public var rejectReason: String?
    /// When set, the engine stops the run with this message (``RunStopCause``) and leaves the item to a
    /// resume instead of failing it, since every later item would fail alike: once the step's retry policy
    /// is spent for ``RunStopCause/unavailable``, at once for ``RunStopCause/unauthorized``.
    public var stopCause: RunStopCause?

    /// Creates an error.
    public init(
        _ errorClass: ErrorClass, _ message: String, rejectReason: String? = nil, stopCause: RunStopCause? = nil
    ) {
        self.errorClass = errorClass
        self.message = message
        self.rejectReason = rejectReason
        self.stopCause = stopCause
    }

    /// A service the action needs is unreachable (``RunStopCause/unavailable``).
    public var isUnavailable: Bool { stopCause == .unavailable }
    /// Whether the error stops the run rather than failing its item (an action answering per item
    /// throws such an error instead of returning it as the item's outcome).
    public var stopsRun: Bool { stopCause != nil }

    /// `error` as the engine treats it: itself when an ``ActionError``, converted when
    /// ``ActionErrorConvertible``, else nil (the engine's default: permanent).
    public static func of(_ error: any Error) -> ActionError? {
        (error as? ActionError) ?? (error as? any ActionErrorConvertible)?.actionError
    }

    /// A transient failure worth retrying.
    public static func retryable(_ message: String) -> ActionError { ActionError(.retryable, message) }
    /// A failure retrying cannot fix.
    public static func permanent(_ message: String) -> ActionError { ActionError(.permanent, message) }
    /// No answer after the request was sent.
    public static func inDoubt(_ message: String) -> ActionError { ActionError(.inDoubt, message) }
    /// A service the action needs is unreachable: retried by the step's policy, then the run stops.
    public static func unavailable(_ message: String) -> ActionError {
        ActionError(.retryable, message, stopCause: .unavailable)
    }
    /// The action's sign-in is not accepted: the run stops at once, without a retry.
    public static func unauthorized(_ message: String) -> ActionError {
        ActionError(.permanent, message, stopCause: .unauthorized)
    }
    /// The item is invalid input: reported as rejected with `reason`.
    public static func rejected(_ reason: String) -> ActionError {
        ActionError(.permanent, reason, rejectReason: reason)
    }

    /// The class for an HTTP status: 429 and 5xx retry, other 4xx are permanent.
    /// See <https://www.rfc-editor.org/rfc/rfc9110#section-15>.
    public static func http(status: Int, _ message: String) -> ActionError {
        let errorClass: ErrorClass = (status == 429 || status >= 500) ? .retryable : .permanent
        return ActionError(errorClass, "HTTP \(status): \(message)")
    }

    public var description: String {
        if let rejectReason { return "rejected: \(rejectReason)" }
        return "\(errorClass.rawValue): \(message)"
    }
}
