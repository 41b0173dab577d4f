import Foundation
import OMSProtocol
import WalletCrypto

/// Signs users in on their own behalf for the per-user mode of the jobs (docs/jobs.md): for a row's
/// `subject`, an ID token minted by the app's issuer (``AppIssuer``), then the `SignIn.idToken` flow
/// against the core; the resulting credential is kept per subject and shared by every row of it.
///
/// - Cache: in memory, at most `capacity` subjects, the least recently used dropped first (its
///   credential simply lapses on the core: nothing is revoked); a credential within `renewal` seconds of
///   its expiry is replaced by a fresh sign-in.
/// - Concurrency: one sign-in per subject at a time. Rows of a subject that arrive while it is signing in
///   wait for that sign-in and share its credential; a failed sign-in is not cached (the next row tries
///   again). Different subjects sign in concurrently.
/// - Secrets: the issuer's key stays in ``AppIssuer``; credentials stay in memory (never written to the
///   home); nothing here prints either.
public actor SubjectSignIn {
    /// A signed-in subject: its credential and a client signing with it (one nonce source per subject).
    public struct Session: Sendable {
        /// The subject's credential (in memory only; never saved to the home).
        public let credential: StoredCredential
        /// A client signing as the subject, shared by every row of it.
        public let client: WaasClient
    }

    private enum Entry {
        case ready(Session, lastUse: UInt64)
        case signingIn(Task<Session, any Error>, generation: UInt64)
    }

    private let issuer: AppIssuer
    private let connection: CoreConnection
    private let publishableKey: PublishableKey
    private let lifetime: Int
    private let capacity: Int
    private let renewal: Int64
    private let now: @Sendable () -> Int64
    private var entries: [String: Entry] = [:]
    private var tick: UInt64 = 0
    private var readyCount = 0
    /// Sign-ins made (successful or not), for progress lines and tests.
    public private(set) var signInCount = 0

    /// Creates the cache.
    ///
    /// - Parameters:
    ///   - issuer: the app's issuer; the project must trust it (`walletops core trust-issuer`).
    ///   - connection: the core (embedded or served).
    ///   - publishableKey: the project's publishable key.
    ///   - lifetime: each subject's session lifetime, seconds (default one hour).
    ///   - capacity: subjects kept at most (default 1,024).
    ///   - renewal: a credential this close to its expiry is renewed (default 120 s; at most half the lifetime).
    ///   - now: the clock of the cache's expiry decisions (tokens are always minted on the system clock).
    public init(
        issuer: AppIssuer, connection: CoreConnection, publishableKey: PublishableKey, lifetime: Int = 3_600,
        capacity: Int = 1_024, renewal: Int64 = 120,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.issuer = issuer
        self.connection = connection
        self.publishableKey = publishableKey
        self.lifetime = max(60, lifetime)
        self.capacity = max(1, capacity)
        self.renewal = min(max(0, renewal), Int64(max(60, lifetime)) / 2)
        self.now = now
    }

    /// The signed-in client of `subject`, signing it in first when needed.
    ///
    /// - Throws: `JobsError.invalidInput` for an empty subject; the core's refusal (a `WaasError`, e.g.
    ///   Unauthorized when the project does not trust the issuer or the key) when the sign-in fails.
    public func client(for subject: String) async throws -> WaasClient {
        try await session(for: subject).client
    }

    /// The signed-in session (credential and client) of `subject`.
    public func session(for subject: String) async throws -> Session {
        guard !subject.isEmpty else { throw JobsError(.invalidInput, "a per-user row needs a non-empty subject") }
        switch entries[subject] {
        case .ready(let session, _)? where (session.credential.expiresAtSeconds ?? 0) - renewal > now():
            tick += 1
            entries[subject] = .ready(session, lastUse: tick)
            return session
        case .signingIn(let task, _)?:
            return try await task.value
        case .ready?, nil:
            break
        }
        if case .ready = entries[subject] { readyCount -= 1 }
        tick += 1
        let generation = tick
        // Detached: the token's signature and the round trips run off this actor, so subjects sign in in parallel.
        let task = Task.detached { [issuer, connection, publishableKey, lifetime] in
            // The token is checked against the core's clock, so it is minted on the real one.
            let token = try issuer.idToken(subject: subject, now: Int64(Date().timeIntervalSince1970))
            let credential = try await SignIn.idToken(
                token, connection: connection, publishableKey: publishableKey, lifetime: lifetime)
            return Session(
                credential: credential,
                client: connection.client(publishableKey: publishableKey, signer: try credential.signer()))
        }
        entries[subject] = .signingIn(task, generation: generation)
        signInCount += 1
        do {
            let session = try await task.value
            cache(subject, generation: generation, with: session)
            return session
        } catch {
            if case .signingIn(_, let current) = entries[subject], current == generation { entries[subject] = nil }
            throw error
        }
    }

    /// Subjects with a live credential in the cache.
    public var cachedSubjects: Int { readyCount }

    /// Keeps `session` as `subject`'s ready one (unless a later sign-in replaced it), evicting the least
    /// recently used past the capacity.
    private func cache(_ subject: String, generation: UInt64, with session: Session) {
        guard case .signingIn(_, let current) = entries[subject], current == generation else { return }
        tick += 1
        entries[subject] = .ready(session, lastUse: tick)
        readyCount += 1
        while readyCount > capacity, let oldest = leastRecentlyUsed() {
            entries[oldest] = nil
            readyCount -= 1
        }
    }

    /// The ready subject used longest ago (a scan: eviction is rare next to a sign-in's round trips).
    private func leastRecentlyUsed() -> String? {
        var oldest: (String, UInt64)?
        for (subject, entry) in entries {
            if case .ready(_, let lastUse) = entry, lastUse < oldest?.1 ?? .max { oldest = (subject, lastUse) }
        }
        return oldest?.0
    }
}
