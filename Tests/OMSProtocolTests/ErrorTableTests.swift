import Foundation
import OMSProtocol
import Testing

/// The error table against the official schema (waas v1-26.8.20, OMS-REFERENCE "Error codes"): a
/// client picks its error class by number, so each number, name and status must be the schema's.
@Suite struct ErrorTableTests {
    /// (number, name, HTTP status) as the schema's generated client declares them.
    static let schema: [(Int, String, Int)] = [
        (0, "WebrpcEndpoint", 400), (-1, "WebrpcRequestFailed", 400), (-2, "WebrpcBadRoute", 404),
        (-3, "WebrpcBadMethod", 405), (-4, "WebrpcBadRequest", 400), (-5, "WebrpcBadResponse", 500),
        (-6, "WebrpcServerPanic", 500), (-7, "WebrpcInternalError", 500),
        (7100, "InternalError", 500), (7101, "EncryptionError", 500), (7102, "DatabaseError", 500),
        (7103, "DataIntegrityError", 500), (7104, "IdentityProviderError", 500),
        (7200, "InvalidRequest", 400), (7201, "InvalidSignature", 400), (7202, "KeyNotFound", 404),
        (7203, "KeyExpired", 400), (7204, "SignerNotFound", 404), (7205, "UsageLimitExceeded", 429),
        (7206, "PreconditionFailed", 412), (7207, "Unauthorized", 401),
        (7002, "ProofVerificationFailed", 400), (7003, "AnswerIncorrect", 400), (7004, "ChallengeExpired", 400),
        (7005, "TooManyAttempts", 400), (7006, "OAuthError", 400), (7007, "AccessError", 401),
        (7008, "CommitmentConsumed", 400), (7009, "AuthMethodUnavailable", 404), (7010, "OTPRateLimited", 429),
        (7300, "WalletNotFound", 404), (7301, "AccountNotFound", 404), (7302, "AccountAlreadyExists", 409),
        (7303, "UnsupportedWalletType", 400), (7304, "UnsupportedNetwork", 400),
        (7305, "UnsupportedTransactionMode", 400), (7306, "TransactionFailed", 500),
        (7307, "WalletProviderError", 500), (7308, "TransactionNotFound", 404), (7309, "TransactionExpired", 400),
        (7310, "InvalidFeeOption", 400), (7311, "TransactionBroadcastFailed", 502), (7312, "UnsupportedAsset", 400),
        // The import-era schema's.
        (7313, "AddressAlreadyImported", 409),
    ]

    @Test func everyCodeHasTheSchemasNumberNameAndStatus() {
        for (number, name, status) in Self.schema {
            let known = WaasErrorCode.known(number)
            #expect(known?.name == name, "\(number)")
            #expect(known?.httpStatus == status, "\(number) \(name)")
        }
        // No number twice, and nothing the schema does not have.
        #expect(Set(WaasErrorCode.all.map(\.code)).count == WaasErrorCode.all.count)
        #expect(Set(WaasErrorCode.all.map(\.code)) == Set(Self.schema.map(\.0)))
    }

    @Test func theAuthCodesMeanWhatTheSDKReports() {
        #expect(WaasErrorCode.answerIncorrect.code == 7003)
        #expect(WaasErrorCode.challengeExpired.code == 7004)
        #expect(WaasErrorCode.tooManyAttempts.code == 7005)
        #expect(WaasErrorCode.proofVerificationFailed.code == 7002)
    }

    @Test func theTextTravelsInMessageAndMsg() throws {
        let error = WaasError(.answerIncorrect, "the code is not correct")
        let body = try JSONSerialization.jsonObject(with: Data(WaasClient.encodeBody(error.wireBody))) as? [String: Any]
        #expect(body?["message"] as? String == "the code is not correct")
        #expect(body?["msg"] as? String == "the code is not correct")
        #expect(body?["code"] as? Int == 7003)
        #expect(body?["error"] as? String == "AnswerIncorrect")
        #expect(body?["status"] as? Int == 400)
        // Either spelling decodes: webrpc Go servers send `msg`, the schema's clients read `message`.
        let onlyMessage = WaasError(
            wireBody: Array(#"{"error":"ChallengeExpired","code":7004,"message":"late","status":400}"#.utf8),
            httpStatus: 400)
        #expect(onlyMessage?.code == .challengeExpired && onlyMessage?.message == "late")
        let onlyMsg = WaasError(
            wireBody: Array(#"{"error":"ChallengeExpired","code":7004,"msg":"late","status":400}"#.utf8),
            httpStatus: 400)
        #expect(onlyMsg?.message == "late")
    }
}
