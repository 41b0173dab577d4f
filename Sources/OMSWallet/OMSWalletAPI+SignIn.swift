import Foundation
import OMSProtocol
import Synchronization
import WalletCrypto

extension OMSWalletAPI {
    /// Signs in with an OIDC ID token from a provider the project trusts.
    ///
    /// A fresh P-256 credential commits to the token (CommitVerifier `oidc`/`id-token` with metadata
    /// iss, aud, exp and handle base64url(SHA-256(token))), then CompleteAuth registers it for
    /// `sessionLifetime` seconds (604,800 by default). Then, among the account's wallets of `walletType`:
    /// exactly one is used, none means one is created, several give a `PendingWalletSelection`.
    ///
    /// - Parameter walletType: the wallet type wanted; the configuration's (Ethereum) when nil.
    /// - Throws: `OMSWalletError` (`.validationError` for a token that is not a JWT with iss, aud and
    ///   exp; `.authCommitmentConsumed`; `.httpError`; `.storageError`).
    public func signIn(idToken: String, walletType: WalletType? = nil) async throws -> OMSWalletSignInResult {
        let operation = "wallet.signIn"
        let token = idToken.trimmingCharacters(in: .whitespacesAndNewlines)
        let wanted = walletType ?? configuration.walletType
        guard wanted.isKnown else {
            throw OMSWalletError.validation(operation, "walletType \(wanted) is not supported")
        }
        guard let jwt = try? JWT.decodeUnverified(token) else {
            throw OMSWalletError.validation(operation, "idToken is not a JWT")
        }
        guard let iss = jwt.issuer, !iss.isEmpty else {
            throw OMSWalletError.validation(operation, "idToken has no iss claim")
        }
        guard let aud = ((try? jwt.audience) ?? nil)?.first, !aud.isEmpty else {
            throw OMSWalletError.validation(operation, "idToken has no aud claim")
        }
        guard let exp = jwt.claims["exp"]?.intValue else {
            throw OMSWalletError.validation(operation, "idToken has no numeric exp claim")
        }
        do {
            let key = try P256.Signing.PrivateKey()
            let client = client(signingWith: key)
            let commit = try await client.call(
                .commitVerifier,
                CommitVerifierRequest(
                    identityType: .oidc, authMode: .idToken,
                    metadata: ["iss": iss, "aud": aud, "exp": String(exp)],
                    handle: Base64URL.encode(SHA256.hash(data: Array(token.utf8)))),
                as: CommitVerifierResponse.self)
            let completed = try await client.call(
                .completeAuth,
                CompleteAuthRequest(
                    identityType: .oidc, authMode: .idToken, verifier: commit.verifier, answer: token,
                    lifetime: configuration.sessionLifetime),
                as: CompleteAuthResponse.self)
            let auth = OMSWalletAuthMetadata(
                method: .idToken, issuer: completed.identity.iss ?? iss,
                provider: .init(audience: aud, subject: completed.identity.sub),
                email: completed.email ?? completed.identity.email)
            return try await finishSignIn(
                completed, key: key, client: client, auth: auth, walletType: wanted, operation: operation)
        } catch {
            throw OMSWalletError.wrap(error, operation: operation)
        }
    }

    /// Signs in as `email` with an ID token minted by the core's development issuer (a development
    /// project trusts it): the one the core's connection offers (OMSEmbedded's `.embedded(home:)`,
    /// `.service(_:)`, `.remote(_:developmentHome:)`) or that the caller gave `.transport(_:developmentIssuer:)`.
    ///
    /// - Throws: `OMSWalletError` `.validationError` when the core offers no development issuer; the
    ///   errors of `signIn(idToken:walletType:)`.
    public func signInWithDevelopmentIssuer(email: String, walletType: WalletType? = nil) async throws
        -> OMSWalletSignInResult
    {
        let operation = "wallet.signInWithDevelopmentIssuer"
        guard let developmentIssuer else {
            throw OMSWalletError.validation(
                operation,
                "no development issuer: use an embedded core or name the served core's developmentHome")
        }
        let token: String
        do {
            token = try await developmentIssuer.idToken(email: email)
        } catch {
            throw OMSWalletError.wrap(error, operation: operation)
        }
        return try await signIn(idToken: token, walletType: walletType)
    }

    /// Picks the wallet after CompleteAuth: the only one of the type, a new one, or a selection.
    private func finishSignIn(
        _ completed: CompleteAuthResponse, key: P256.Signing.PrivateKey, client: WaasClient,
        auth: OMSWalletAuthMetadata, walletType: WalletType, operation: String
    ) async throws -> OMSWalletSignInResult {
        let credentialId = Base16.encodePrefixed(key.publicKey.x963Representation)
        guard completed.credential.credentialId.lowercased() == credentialId.lowercased() else {
            throw OMSWalletError(.invalidResponse, operation: operation, "CompleteAuth named another credential")
        }
        guard let expiresAt = RFC3339.date(completed.credential.expiresAt) else {
            throw OMSWalletError(.invalidResponse, operation: operation, "credential.expiresAt is not RFC 3339")
        }
        var wallets = completed.wallets
        if completed.page?.hasMore == true {
            wallets += try await Self.allWallets(client, after: completed.page)
        }
        let candidates = wallets.filter { $0.walletType == walletType }
        let chosen: Wallet
        switch candidates.count {
        case 0:
            chosen = try await client.call(
                .createWallet, CreateWalletRequest(networkFamily: walletType.networkFamily), as: WalletResponse.self
            ).wallet
        case 1:
            chosen = try await client.call(
                .useWallet, UseWalletRequest(walletId: candidates[0].id), as: WalletResponse.self
            ).wallet
        default:
            let selection = PendingWalletSelection(
                wallets: candidates, walletType: walletType, expiresAt: expiresAt,
                expiresAtText: completed.credential.expiresAt, auth: auth, key: key, client: client,
                credentialId: credentialId)
            state.withLock { state in
                state.pendingSelection = selection.id
                state.selectionInFlight = false
            }
            return .walletSelection(selection)
        }
        let stored = StoredSession(
            version: StoredSession.currentVersion, projectId: publishableKey.projectId, credentialId: credentialId,
            walletId: chosen.id, walletAddress: chosen.address, walletType: chosen.walletType,
            keyOrigin: chosen.keyOrigin, reference: chosen.reference, expiresAt: completed.credential.expiresAt,
            auth: auth)
        return .active(try activate(stored, key: key, client: client, operation: operation))
    }

    /// Completes a pending selection with one of its wallets and activates it.
    ///
    /// - Throws: `OMSWalletError` `.walletSelectionStale` (already completed, or superseded by a newer
    ///   sign-in or a sign-out), `.walletSelectionInFlight` (another completion is running),
    ///   `.walletSelectionUnavailable` (the wallet is not one of the selection's, or no longer exists),
    ///   `.sessionExpired` (the credential expired meanwhile).
    public func completeWalletSelection(_ selection: PendingWalletSelection, walletId: String) async throws
        -> OMSWalletActiveSession
    {
        let operation = "wallet.completeWalletSelection"
        guard selection.wallets.contains(where: { $0.id == walletId }) else {
            throw OMSWalletError(
                .walletSelectionUnavailable, operation: operation, "wallet \(walletId) is not one of the selection's")
        }
        try state.withLock { state throws(OMSWalletError) in
            guard state.pendingSelection == selection.id else {
                throw OMSWalletError(
                    .walletSelectionStale, operation: operation,
                    "this selection was completed or superseded by a newer sign-in or a sign-out")
            }
            guard !state.selectionInFlight else {
                throw OMSWalletError(
                    .walletSelectionInFlight, operation: operation, "this selection is being completed by another call")
            }
            state.selectionInFlight = true
        }
        // Whatever happens next, a failed completion leaves the selection usable again (if still current).
        func release() {
            state.withLock { state in
                if state.pendingSelection == selection.id { state.selectionInFlight = false }
            }
        }
        guard configuration.clock.now() < effectiveExpiry(selection.expiresAt) else {
            release()
            throw OMSWalletError(.sessionExpired, operation: operation, "the signed-in credential expired")
        }
        let wallet: Wallet
        do {
            wallet = try await selection.client.call(
                .useWallet, UseWalletRequest(walletId: walletId), as: WalletResponse.self
            ).wallet
        } catch let error as WaasError where error.code == .walletNotFound {
            release()
            throw OMSWalletError(
                .walletSelectionUnavailable, operation: operation, error.message, status: error.code.httpStatus,
                serviceError: error)
        } catch {
            release()
            throw OMSWalletError.wrap(error, operation: operation)
        }
        let stillCurrent = state.withLock { $0.pendingSelection == selection.id }
        guard stillCurrent else {
            throw OMSWalletError(
                .walletSelectionStale, operation: operation, "a newer sign-in or a sign-out superseded this selection")
        }
        let stored = StoredSession(
            version: StoredSession.currentVersion, projectId: publishableKey.projectId,
            credentialId: selection.credentialId, walletId: wallet.id, walletAddress: wallet.address,
            walletType: wallet.walletType, keyOrigin: wallet.keyOrigin, reference: wallet.reference,
            expiresAt: selection.expiresAtText,
            auth: selection.auth)
        do {
            return try activate(stored, key: selection.key, client: selection.client, operation: operation)
        } catch {
            release()
            throw error
        }
    }

    /// Every wallet of the account: ListWallets from `page` (or the start) until the cursor ends.
    static func allWallets(_ client: WaasClient, after page: Page? = nil) async throws -> [Wallet] {
        var wallets: [Wallet] = []
        var cursor = page?.hasMore == true ? page?.cursor : nil
        if page != nil, cursor == nil { return [] }
        repeat {
            let reply = try await client.call(
                .listWallets, ListWalletsRequest(page: Page.optional(limit: nil, cursor: cursor)),
                as: ListWalletsResponse.self)
            wallets += reply.wallets
            cursor = reply.page?.hasMore == true ? reply.page?.cursor : nil
        } while cursor != nil
        return wallets
    }
}
