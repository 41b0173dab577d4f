/// A numbered WaaS service error with its name and HTTP status, as the official schema gives them
/// (OMS-REFERENCE "Error codes"; waas v1-26.8.20).
///
/// The numeric `code` selects the error class in the official clients and the name travels in the
/// `error` field, so both follow the schema exactly: a wrong number is a wrong error for the user.
public struct WaasErrorCode: Hashable, Sendable, CustomStringConvertible {
    public let code: Int
    public let name: String
    public let httpStatus: Int

    public init(code: Int, name: String, httpStatus: Int) {
        self.code = code
        self.name = name
        self.httpStatus = httpStatus
    }

    public var description: String { "\(name) (\(code))" }

    // webrpc's own errors, which every webrpc client knows.
    public static let webrpcEndpoint = WaasErrorCode(code: 0, name: "WebrpcEndpoint", httpStatus: 400)
    public static let webrpcRequestFailed = WaasErrorCode(code: -1, name: "WebrpcRequestFailed", httpStatus: 400)
    public static let webrpcBadRoute = WaasErrorCode(code: -2, name: "WebrpcBadRoute", httpStatus: 404)
    public static let webrpcBadMethod = WaasErrorCode(code: -3, name: "WebrpcBadMethod", httpStatus: 405)
    public static let webrpcBadRequest = WaasErrorCode(code: -4, name: "WebrpcBadRequest", httpStatus: 400)
    public static let webrpcBadResponse = WaasErrorCode(code: -5, name: "WebrpcBadResponse", httpStatus: 500)
    public static let webrpcServerPanic = WaasErrorCode(code: -6, name: "WebrpcServerPanic", httpStatus: 500)
    public static let webrpcInternalError = WaasErrorCode(code: -7, name: "WebrpcInternalError", httpStatus: 500)

    // Internal 7100-7104 / 500.
    public static let `internal` = WaasErrorCode(code: 7100, name: "InternalError", httpStatus: 500)
    public static let encryptionError = WaasErrorCode(code: 7101, name: "EncryptionError", httpStatus: 500)
    public static let databaseError = WaasErrorCode(code: 7102, name: "DatabaseError", httpStatus: 500)
    public static let dataIntegrityError = WaasErrorCode(code: 7103, name: "DataIntegrityError", httpStatus: 500)
    public static let identityProviderError = WaasErrorCode(code: 7104, name: "IdentityProviderError", httpStatus: 500)
    /// InternalError answered as 503 while the server stops: the schema has no code of its own for it,
    /// and the status tells a client to try again elsewhere or later.
    public static let internalUnavailable = WaasErrorCode(code: 7100, name: "InternalError", httpStatus: 503)

    // Requests and credentials.
    public static let invalidRequest = WaasErrorCode(code: 7200, name: "InvalidRequest", httpStatus: 400)
    public static let invalidSignature = WaasErrorCode(code: 7201, name: "InvalidSignature", httpStatus: 400)
    public static let keyNotFound = WaasErrorCode(code: 7202, name: "KeyNotFound", httpStatus: 404)
    public static let keyExpired = WaasErrorCode(code: 7203, name: "KeyExpired", httpStatus: 400)
    public static let signerNotFound = WaasErrorCode(code: 7204, name: "SignerNotFound", httpStatus: 404)
    public static let usageLimitExceeded = WaasErrorCode(code: 7205, name: "UsageLimitExceeded", httpStatus: 429)
    public static let preconditionFailed = WaasErrorCode(code: 7206, name: "PreconditionFailed", httpStatus: 412)
    public static let unauthorized = WaasErrorCode(code: 7207, name: "Unauthorized", httpStatus: 401)

    // Authentication 7002-7010.
    public static let proofVerificationFailed = WaasErrorCode(
        code: 7002, name: "ProofVerificationFailed", httpStatus: 400)
    public static let answerIncorrect = WaasErrorCode(code: 7003, name: "AnswerIncorrect", httpStatus: 400)
    public static let challengeExpired = WaasErrorCode(code: 7004, name: "ChallengeExpired", httpStatus: 400)
    public static let tooManyAttempts = WaasErrorCode(code: 7005, name: "TooManyAttempts", httpStatus: 400)
    public static let oauthError = WaasErrorCode(code: 7006, name: "OAuthError", httpStatus: 400)
    public static let accessError = WaasErrorCode(code: 7007, name: "AccessError", httpStatus: 401)
    public static let commitmentConsumed = WaasErrorCode(code: 7008, name: "CommitmentConsumed", httpStatus: 400)
    public static let authMethodUnavailable = WaasErrorCode(
        code: 7009, name: "AuthMethodUnavailable", httpStatus: 404)
    public static let otpRateLimited = WaasErrorCode(code: 7010, name: "OTPRateLimited", httpStatus: 429)

    // Wallets and transactions.
    public static let walletNotFound = WaasErrorCode(code: 7300, name: "WalletNotFound", httpStatus: 404)
    public static let accountNotFound = WaasErrorCode(code: 7301, name: "AccountNotFound", httpStatus: 404)
    public static let accountAlreadyExists = WaasErrorCode(code: 7302, name: "AccountAlreadyExists", httpStatus: 409)
    public static let unsupportedWalletType = WaasErrorCode(code: 7303, name: "UnsupportedWalletType", httpStatus: 400)
    public static let unsupportedNetwork = WaasErrorCode(code: 7304, name: "UnsupportedNetwork", httpStatus: 400)
    public static let unsupportedTransactionMode = WaasErrorCode(
        code: 7305, name: "UnsupportedTransactionMode", httpStatus: 400)
    public static let transactionFailed = WaasErrorCode(code: 7306, name: "TransactionFailed", httpStatus: 500)
    public static let walletProviderError = WaasErrorCode(code: 7307, name: "WalletProviderError", httpStatus: 500)
    public static let transactionNotFound = WaasErrorCode(code: 7308, name: "TransactionNotFound", httpStatus: 404)
    public static let transactionExpired = WaasErrorCode(code: 7309, name: "TransactionExpired", httpStatus: 400)
    public static let invalidFeeOption = WaasErrorCode(code: 7310, name: "InvalidFeeOption", httpStatus: 400)
    public static let transactionBroadcastFailed = WaasErrorCode(
        code: 7311, name: "TransactionBroadcastFailed", httpStatus: 502)
    public static let unsupportedAsset = WaasErrorCode(code: 7312, name: "UnsupportedAsset", httpStatus: 400)
    public static let addressAlreadyImported = WaasErrorCode(
        code: 7313, name: "AddressAlreadyImported", httpStatus: 409)

    /// Every code this module knows, one per number, for lookups by number.
    public static let all: [WaasErrorCode] = [
        .webrpcEndpoint, .webrpcRequestFailed, .webrpcBadRoute, .webrpcBadMethod, .webrpcBadRequest,
        .webrpcBadResponse, .webrpcServerPanic, .webrpcInternalError,
        .internal, .encryptionError, .databaseError, .dataIntegrityError, .identityProviderError,
        .invalidRequest, .invalidSignature, .keyNotFound, .keyExpired, .signerNotFound, .usageLimitExceeded,
        .preconditionFailed, .unauthorized,
        .proofVerificationFailed, .answerIncorrect, .challengeExpired, .tooManyAttempts, .oauthError,
        .accessError, .commitmentConsumed, .authMethodUnavailable, .otpRateLimited,
        .walletNotFound, .accountNotFound, .accountAlreadyExists, .unsupportedWalletType, .unsupportedNetwork,
        .unsupportedTransactionMode, .transactionFailed, .walletProviderError, .transactionNotFound,
        .transactionExpired, .invalidFeeOption, .transactionBroadcastFailed, .unsupportedAsset,
        .addressAlreadyImported,
    ]

    /// The known code with this number, if any.
    public static func known(_ code: Int) -> WaasErrorCode? {
        all.first { $0.code == code }
    }

    /// Whether the same request may succeed later (with a fresh nonce): server faults and rate limits.
    /// UsageLimitExceeded is a 429 too, but a spent limit does not come back, so it is permanent.
    public var isRetryable: Bool {
        (httpStatus >= 500 && self != .transactionFailed) || self == .otpRateLimited
    }
}
