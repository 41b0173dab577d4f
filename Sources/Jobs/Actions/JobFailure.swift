import OMSProtocol
import Runner

/// How the jobs turn errors of the client into the engine's classes.
enum JobFailure {
    /// A service error by status: 429 and 5xx retry, other 4xx are permanent; a failed transport is
    /// in doubt (the request may have been applied), resolved by the caller's probe; an unreachable core
    /// or a refused sign-in stops the run.
    static func classify(_ error: any Error) -> ActionError {
        if let error = error as? ActionError { return error }
        if let error = error as? WaasError {
            // A stale nonce (other requests of the credential went first) refused the request before it
            // changed anything: worth sending again.
            if error.code == .preconditionFailed { return ActionError.retryable("\(error.code): \(error.message)") }
            // The core refused the signed-in credential itself (expired, revoked): every later request would
            // be refused alike, so the run stops until the operator signs in again.
            if isSignInRefusal(error) {
                return ActionError.unauthorized(
                    "the core refused the session (\(error.code): \(error.message)): sign in again: run "
                        + "'walletops login --dev --email E' (or --id-token-file F, --issuer-key-file F)")
            }
            return ActionError.http(status: error.code.httpStatus, "\(error.code): \(error.message)")
        }
        // Nothing was sent: the run stops (exit 75) once the step's retries are spent, see `isUnavailable`.
        if let error = error as? TransportError, error.isUnreachable { return ActionError.unavailable(error.message) }
        // Not delivered for another reason: nothing happened, worth sending again.
        if let error = error as? TransportError, !error.mayHaveBeenDelivered {
            return ActionError.retryable(error.message)
        }
        if let error = error as? WaasClientError {
            return ActionError.permanent("\(error.method.name): \(error.message)")
        }
        if let error = error as? JobsError { return error.actionError }
        if error is CancellationError { return ActionError.retryable("cancelled") }
        return ActionError.inDoubt("\(type(of: error)): request outcome unknown")
    }

    /// Whether the core refused a request for its credential (expired, revoked, not signed in), not for
    /// what it asked.
    static func isSignInRefusal(_ error: WaasError) -> Bool {
        error.code == .keyExpired || error.code == .unauthorized
    }

    /// Whether an error left the outcome of a request unknown (no reply came back).
    static func isInDoubt(_ error: any Error) -> Bool {
        !(error is WaasError) && !(error is WaasClientError) && !(error is JobsError) && !(error is ActionError)
            && !(error is CancellationError)
    }
}
