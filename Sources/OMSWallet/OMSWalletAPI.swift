import Foundation
import OMSProtocol
import Synchronization
import WalletCrypto

/// The wallet API of an `OMSWallet` (`omsWallet.wallet`): the active session, sign-in, wallets,
/// ID tokens, access grants and remote access.
///
/// Protected operations need an active, unexpired session; without one they fail with
/// `.sessionMissing` / `.sessionExpired` before any request is made. A session counts as expired 30 s
/// before its `expiresAt` (OMS-REFERENCE "Clock skew"). Every failure is an `OMSWalletError` naming the
/// operation, e.g. `wallet.listWallets`.
public final class OMSWalletAPI: Sendable {
    let publishableKey: PublishableKey
    let transport: any WaasTransport
    /// What `signInWithDevelopmentIssuer(email:)` mints with, when the core offers one.
    let developmentIssuer: (any DevelopmentIssuer)?
    /// The core's attestation policy for import when the configuration names none.
    let coreAttestation: (@Sendable () async throws -> AttestationPolicy)?
    let storage: SessionStorage
    let configuration: OMSWalletConfiguration
    let state: Mutex<State>

    typealias ExpiryHandler = @MainActor @Sendable (SessionExpiredEvent) -> Void

    /// A session in use: its stored metadata, its signing key and a client signing with it.
    struct ActiveSession: Sendable {
        var stored: StoredSession
        var expiresAt: Date
        var key: P256.Signing.PrivateKey
        var client: WaasClient
        var state: OMSWalletSessionState { stored.state }
        var activeSession: OMSWalletActiveSession {
            OMSWalletActiveSession(wallet: stored.wallet, expiresAt: expiresAt, auth: stored.auth)
        }
        var walletId: String { stored.walletId }
    }

    struct State {
        var active: ActiveSession?
        /// Raised whenever the active session (or its wallet) changes, so late timers and replies are ignored.
        var generation: UInt64 = 0
        var expiryTask: Task<Void, Never>?
        var observers: [Int: ExpiryHandler] = [:]
        var nextObserverId = 0
        /// The pending wallet selection that may still be completed, and whether a completion is running.
        var pendingSelection: UUID?
        var selectionInFlight = false
    }

    init(
        publishableKey: PublishableKey, connection: OMSWalletCore.Connection, storage: SessionStorage,
        configuration: OMSWalletConfiguration
    ) throws {
        self.publishableKey = publishableKey
        self.transport = connection.transport
        self.developmentIssuer = connection.developmentIssuer
        self.coreAttestation = connection.attestation
        self.storage = storage
        self.configuration = configuration
        self.state = Mutex(State())
        let restored: ActiveSession?
        do {
            restored = try restore()
        } catch let failure as StorageFailure {
            throw OMSWalletError.storage("OMSWallet.init", failure.description)
        }
        if let restored {
            state.withLock { state in
                state.active = restored
                scheduleExpiry(&state)
            }
        }
    }

    deinit {
        state.withLock { $0.expiryTask?.cancel() }
    }

    // MARK: Session state

    /// The completed-session metadata of the active session (empty when there is none). An expired
    /// session stays visible here, with its `expiresAt`, until a sign-in or sign-out replaces it.
    public var session: OMSWalletSessionState {
        state.withLock { $0.active?.state ?? .empty }
    }

    /// Whether a session is active and unexpired (with the 30 s margin).
    public var hasActiveSession: Bool {
        guard let active = state.withLock({ $0.active }) else { return false }
        return !isExpired(active)
    }

    func effectiveExpiry(_ expiresAt: Date) -> Date {
        expiresAt.addingTimeInterval(-configuration.clockSkew)
    }

    func isExpired(_ session: ActiveSession) -> Bool {
        configuration.clock.now() >= effectiveExpiry(session.expiresAt)
    }

    /// A client that signs with `key`.
    func client(signingWith key: P256.Signing.PrivateKey) -> WaasClient {
        WaasClient(transport: transport, publishableKey: publishableKey, signer: P256RequestSigner(key: key))
    }

    /// A client for public methods.
    var publicClient: WaasClient { WaasClient(transport: transport, publishableKey: publishableKey) }

    /// The active session for a protected operation: `.sessionMissing` / `.sessionExpired` otherwise.
    func activeSession(_ operation: String) throws(OMSWalletError) -> ActiveSession {
        guard let active = state.withLock({ $0.active }) else {
            throw OMSWalletError(.sessionMissing, operation: operation, "no active session: sign in first")
        }
        guard !isExpired(active) else {
            throw OMSWalletError(
                .sessionExpired, operation: operation,
                "the session expired at \(RFC3339.format(active.expiresAt)): sign in again")
        }
        return active
    }

    /// Runs a protected operation with the active session; every failure becomes an `OMSWalletError`.
    func perform<T>(_ operation: String, _ body: (ActiveSession) async throws -> T) async throws -> T {
        let session = try activeSession(operation)
        do {
            return try await body(session)
        } catch {
            throw OMSWalletError.wrap(error, operation: operation)
        }
    }

    // MARK: Activation

    /// Makes a session active and persists it: the key file first, so `session.json` never names a key
    /// that is not on disk.
    ///
    /// - Parameter client: the client that signed in with `key`: reusing it keeps one nonce source per
    ///   credential, so a request right after sign-in cannot repeat the last sign-in nonce.
    func activate(_ stored: StoredSession, key: P256.Signing.PrivateKey, client: WaasClient, operation: String)
        throws(OMSWalletError) -> OMSWalletActiveSession
    {
        guard let expiresAt = stored.expiryDate else {
            throw OMSWalletError(.invalidResponse, operation: operation, "credential.expiresAt is not RFC 3339")
        }
        let session = ActiveSession(stored: stored, expiresAt: expiresAt, key: key, client: client)
        guard !isExpired(session) else {
            throw OMSWalletError(.sessionExpired, operation: operation, "the new session is already expired")
        }
        do {
            try storage.saveKey(key)
            try storage.saveSession(stored)
        } catch {
            throw OMSWalletError.storage(operation, "\(error)")
        }
        state.withLock { state in
            state.active = session
            state.pendingSelection = nil
            state.selectionInFlight = false
            scheduleExpiry(&state)
        }
        return session.activeSession
    }

    /// Replaces the active wallet of `session`, keeping its credential, expiry and auth metadata.
    func replaceWallet(_ wallet: Wallet, of session: ActiveSession, operation: String) throws(OMSWalletError)
        -> OMSWalletActiveSession
    {
        let stored = session.stored.activating(wallet)
        do {
            try storage.saveSession(stored)
        } catch {
            throw OMSWalletError.storage(operation, "\(error)")
        }
        let updated = stored
        let replaced = state.withLock { state in
            // A sign-in or sign-out that happened meanwhile wins.
            guard state.active?.stored.credentialId == session.stored.credentialId else { return false }
            state.active?.stored = updated
            return true
        }
        guard replaced else {
            throw OMSWalletError(.sessionMissing, operation: operation, "the session ended during the call")
        }
        return OMSWalletActiveSession(wallet: wallet, expiresAt: session.expiresAt, auth: updated.auth)
    }

    /// Ends the local session (memory and storage scope); revokes nothing on the server.
    func endSession(operation: String) throws(OMSWalletError) {
        state.withLock { state in
            state.active = nil
            state.generation &+= 1
            state.pendingSelection = nil
            state.selectionInFlight = false
            state.expiryTask?.cancel()
            state.expiryTask = nil
        }
        do {
            try storage.clear()
        } catch {
            throw OMSWalletError.storage(operation, "\(error)")
        }
    }

    /// Clears the completed session, the credential key, pending redirect state and the pending wallet
    /// selection of this storage scope. It does not revoke any credential on the server.
    ///
    /// - Throws: `OMSWalletError` `.storageError` when a file of the scope cannot be removed.
    public func signOut() throws {
        try endSession(operation: "wallet.signOut")
    }

    // MARK: Restoration

    /// The stored session when it is unexpired and its credential key restores; otherwise the scope's
    /// session files are removed and nil returned. Throws only when the scope cannot be read.
    private func restore() throws -> ActiveSession? {
        guard case .value(let decoded) = try storage.loadSession() else { return nil }
        guard let stored = decoded, stored.version == StoredSession.currentVersion,
            stored.projectId == publishableKey.projectId, let expiresAt = stored.expiryDate,
            configuration.clock.now() < effectiveExpiry(expiresAt)
        else {
            try? storage.clear()
            return nil
        }
        guard let key = try storage.loadKey(),
            Base16.encodePrefixed(key.publicKey.x963Representation) == stored.credentialId
        else {
            try? storage.clear()
            return nil
        }
        return ActiveSession(stored: stored, expiresAt: expiresAt, key: key, client: client(signingWith: key))
    }
}
