import OMSProtocol
import WalletCrypto

extension OMSWalletAPI {
    /// A wallet ID token (ES256 JWT) for the active wallet, for a backend to verify with the OMS issuer's
    /// JWKS: `sub` is the wallet id, `aud` the project id, with `wallet_address` and `wallet_type`.
    ///
    /// - Parameters:
    ///   - ttlSeconds: the token's lifetime (60...86,400; never past the session); the core's default
    ///     (600) when nil.
    ///   - customClaims: extra claims, e.g. `["role": .string("member")]`. They come from the client: a
    ///     backend must not trust them as authorization state.
    public func getIdToken(ttlSeconds: Int? = nil, customClaims: [String: JSONValue] = [:]) async throws -> String {
        let operation = "wallet.getIdToken"
        if let ttlSeconds, !(60...86_400).contains(ttlSeconds) {
            throw OMSWalletError.validation(operation, "ttlSeconds must be 60...86400, got \(ttlSeconds)")
        }
        return try await perform(operation) { session in
            try await session.client.call(
                .getIDToken,
                GetIDTokenRequest(
                    walletId: session.walletId, ttlSeconds: ttlSeconds,
                    customClaims: customClaims.isEmpty ? nil : customClaims),
                as: GetIDTokenResponse.self
            ).idToken
        }
    }
}
