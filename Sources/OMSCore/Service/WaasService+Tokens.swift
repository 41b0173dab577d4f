import OMSProtocol
import WalletCrypto

extension WaasService {
    static let tokenMethods: [String: Method] = [
        WaasMethod.getIDToken.path: method { try await $0.getIDToken($1, $2) }
    ]

    /// ID-token lifetimes (OMS-REFERENCE "Our decisions": default 600 s, 60...86,400 s).
    static let defaultTokenTTL = 600
    static let tokenTTLRange = 60...86_400

    func getIDToken(_ call: Call, _ request: GetIDTokenRequest) async throws -> GetIDTokenResponse {
        let ttl = request.ttlSeconds ?? Self.defaultTokenTTL
        guard Self.tokenTTLRange.contains(ttl) else {
            throw WaasError(
                .invalidRequest,
                "ttlSeconds must be \(Self.tokenTTLRange.lowerBound)...\(Self.tokenTTLRange.upperBound), got \(ttl)")
        }
        let custom = request.customClaims ?? [:]
        try TokenIssuer.validateCustomClaims(custom)
        let (wallet, email, expiresAt, key) = try await store.write { [self] db in
            let caller = try authenticate(db, call)
            guard let wallet = try db.wallet(request.walletId, account: caller.account.id) else {
                throw WaasError(.walletNotFound, "no wallet \(request.walletId) for this account")
            }
            // Never past the session: a token outliving its credential would outlive a sign-out's revocation.
            let expiresAt = min(call.now + Int64(ttl), caller.credential.expiresAt)
            return (wallet, caller.account.email, expiresAt, try tokens.activeKey(db))
        }
        let token = try tokens.idToken(
            key: key, issuer: issuer, audience: call.project.id, wallet: wallet, email: email, issuedAt: call.now,
            expiresAt: expiresAt, customClaims: custom)
        return GetIDTokenResponse(idToken: token)
    }
}
