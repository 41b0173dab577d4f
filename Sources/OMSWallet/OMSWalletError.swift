import OMSProtocol
import TextFormats

/// An error of the `OMSWallet` SDK: a code from the OMS reference, the SDK operation that failed
/// (e.g. `wallet.authorizeRemoteAccess`), the HTTP status and upstream service error when the service
/// answered, and whether the same call may succeed if tried again.
///
/// Errors are equal by code (STYLE.md "Types and errors"). `description` names the operation, the code
/// and what went wrong; it never shows key material, ID tokens or request signatures.
public struct OMSWalletError: CodedError, Sendable {
    /// The SDK-side error codes of the OMS reference ("Error codes").
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The service answered with an error status (see `serviceError`).
        case httpError
        /// The reply did not have the documented shape.
        case invalidResponse
        /// No reply arrived (connection refused, timeout, transport failure).
        case requestFailed
        /// The sign-in commitment was already used (service code 7008).
        case authCommitmentConsumed
        /// The imported key's address already has a wallet (service code 7313).
        case walletAddressAlreadyImported
        /// An attested import reply did not verify; no key left the client.
        case attestationVerificationFailed
        /// A protected call was made without an active session.
        case sessionMissing
        /// A protected call was made with an expired session (30 s early, for clock skew).
        case sessionExpired
        /// A wallet selection was already used, or superseded by a newer sign-in or a sign-out.
        case walletSelectionStale
        /// The chosen wallet is not one of the selection's wallets (or no longer exists).
        case walletSelectionUnavailable
        /// The selection is being completed by another call.
        case walletSelectionInFlight
        /// A transaction was sent but its outcome could not be confirmed.
        case transactionExecutionUnconfirmed
        /// A transaction's status could not be looked up.
        case transactionStatusLookupFailed
        /// An argument (or the publishable key) is not acceptable; nothing was sent.
        case validationError
        /// The storage scope could not be read or written.
        case storageError
    }

    /// What kind of failure.
    public let code: Code
    /// The SDK operation, e.g. `wallet.listWallets`.
    public let operation: String
    /// What went wrong, for people; never secret material.
    public let message: String
    /// The HTTP status of the service's reply, when there was one.
    public let status: Int?
    /// Whether the same call may succeed later.
    public let isRetryable: Bool
    /// The service's error, when the service answered with one.
    public let serviceError: WaasError?

    /// An error of `operation`; `message` must not contain secret material.
    public init(
        _ code: Code, operation: String, _ message: String, status: Int? = nil, isRetryable: Bool = false,
        serviceError: WaasError? = nil
    ) {
        self.code = code
        self.operation = operation
        self.message = message
        self.status = status
        self.isRetryable = isRetryable
        self.serviceError = serviceError
    }

    /// The same as `isRetryable`, under the name the reference uses.
    public var retryable: Bool { isRetryable }

    public var description: String {
        var text = "\(operation): \(code.rawValue): \(message)"
        if let status { text += " (HTTP \(status))" }
        if let serviceError { text += " [\(serviceError.code.name) \(serviceError.code.code)]" }
        return text
    }

    /// Converts any failure of an operation into an `OMSWalletError` (cancellation passes through).
    static func wrap(_ error: any Error, operation: String) -> any Error {
        switch error {
        case let error as OMSWalletError:
            return error
        case is CancellationError:
            return error
        case let error as WaasError:
            let code: Code =
                switch error.code {
                case .commitmentConsumed: .authCommitmentConsumed
                case .addressAlreadyImported: .walletAddressAlreadyImported
                default: .httpError
                }
            return OMSWalletError(
                code, operation: operation, error.message, status: error.code.httpStatus,
                isRetryable: error.code.isRetryable, serviceError: error)
        case let error as WaasClientError:
            let code: Code =
                switch error.code {
                case .attestationVerificationFailed: .attestationVerificationFailed
                case .invalidResponse: .invalidResponse
                case .missingCredential: .sessionMissing
                case .invalidArgument: .validationError
                }
            return OMSWalletError(code, operation: operation, error.message, status: error.status)
        case let error as TransportError:
            // A request that never left is safe to repeat; one whose answer was lost may have run.
            return OMSWalletError(
                .requestFailed, operation: operation, error.message, isRetryable: !error.mayHaveBeenDelivered)
        default:
            return OMSWalletError(.requestFailed, operation: operation, "\(type(of: error)): \(error)")
        }
    }

    static func validation(_ operation: String, _ message: String) -> OMSWalletError {
        OMSWalletError(.validationError, operation: operation, message)
    }

    static func storage(_ operation: String, _ message: String) -> OMSWalletError {
        OMSWalletError(.storageError, operation: operation, message)
    }
}
