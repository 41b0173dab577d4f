import Foundation
import HomeLayout
import OMSProtocol
import WalletCrypto

/// The CLI's signed-in credential, kept in `<home>/credential.json` (mode 0600).
///
/// It holds the credential's P-256 private key (PKCS#8 DER, base64): the file IS the credential, so it
/// is written only with `WalletHome.writePrivateFile` and never printed; `description` leaves the key out.
/// `walletops logout` deletes the file and revokes nothing on the server (as the SDK's signOut).
public struct StoredCredential: Codable, Sendable, CustomStringConvertible {
    /// Who signed in.
    public struct Identity: Codable, Sendable, Hashable {
        public var iss: String
        public var sub: String
        public var email: String?

        public init(iss: String, sub: String, email: String? = nil) {
            self.iss = iss
            self.sub = sub
            self.email = email
        }
    }

    /// The value of `core` for the embedded core of the home.
    public static let embedded = "embedded"
    /// The metadata key holding the CLI's active wallet (`walletops wallet use`).
    public static let activeWalletKey = "activeWallet"
    /// A session is treated as expired this many seconds early (OMS-REFERENCE "Clock skew").
    public static let expirySkew: Int64 = 30

    /// The P-256 private key, PKCS#8 DER in base64. Never printed.
    var privateKey: String
    /// The `cred` of the signature header: the 0x04 hex public key.
    public var credentialId: String
    /// When the session ends, RFC 3339 UTC.
    public var expiresAt: String
    public var identity: Identity
    /// The served core's URL, or `embedded`.
    public var core: String
    public var projectId: String
    public var publishableKey: String
    /// CLI settings kept with the session (the active wallet).
    public var metadata: [String: String]

    /// A credential for `key`, signed in to `core`.
    public init(
        key: P256.Signing.PrivateKey, credentialId: String, expiresAt: String, identity: Identity, core: String,
        projectId: String, publishableKey: String, metadata: [String: String] = [:]
    ) throws {
        self.privateKey = Data(try key.pkcs8DERRepresentation().unsafeCopy()).base64EncodedString()
        self.credentialId = credentialId
        self.expiresAt = expiresAt
        self.identity = identity
        self.core = core
        self.projectId = projectId
        self.publishableKey = publishableKey
        self.metadata = metadata
    }

    public var description: String {
        "StoredCredential(\(credentialId), \(identity.email ?? identity.sub), core \(core), expires \(expiresAt))"
    }

    /// The wallet `walletops wallet use` chose, if any.
    public var activeWallet: String? {
        get { metadata[Self.activeWalletKey] }
        set { metadata[Self.activeWalletKey] = newValue }
    }

    /// The expiry in seconds since the epoch (nil when the stored text is not RFC 3339).
    public var expiresAtSeconds: Int64? { RFC3339.parse(expiresAt) }

    /// Whether the session is over at `now` (30 s early, so a request does not expire in flight).
    public func isExpired(now: Int64) -> Bool {
        guard let expiry = expiresAtSeconds else { return true }
        return now >= expiry - Self.expirySkew
    }

    /// The request signer of this credential.
    public func signer() throws -> P256RequestSigner {
        guard let der = Data(base64Encoded: privateKey) else {
            throw JobsError(.invalidCredential, "the stored credential's key is not base64: sign in again")
        }
        let key = try P256.Signing.PrivateKey(pkcs8DERRepresentation: SecretBytes([UInt8](der)))
        let signer = P256RequestSigner(key: key)
        guard signer.credentialId == credentialId else {
            throw JobsError(.invalidCredential, "the stored credential's key does not match its id: sign in again")
        }
        return signer
    }

    /// The request signer of this credential that refuses to sign once the session is over
    /// (`JobsError.sessionExpired`, the message of ``require(home:core:now:)``).
    public func sessionSigner(now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) })
        throws -> any RequestSigner
    {
        SessionSigner(signer: try signer(), credential: self, now: now)
    }

    /// The refusal of an expired session: when it ended and how to sign in again.
    static func sessionExpired(_ credential: StoredCredential) -> JobsError {
        JobsError(
            .sessionExpired,
            "session expired at \(credential.expiresAt): sign in again: run 'walletops login --dev --email E' "
                + "(or --id-token-file F, --issuer-key-file F)")
    }

    // MARK: The file

    /// Reads `<home>/credential.json`; nil when there is none.
    public static func load(home: WalletHome) throws -> StoredCredential? {
        let url = home.credentialURL
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw JobsError(.invalidCredential, "cannot read \(url.path)")
        }
        do {
            return try JSONDecoder().decode(StoredCredential.self, from: data)
        } catch {
            throw JobsError(.invalidCredential, "\(url.path) does not decode: run 'walletops login' again")
        }
    }

    /// Writes `<home>/credential.json` with mode 0600, creating the home (0700) if needed.
    public func save(home: WalletHome) throws {
        try home.create()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try WalletHome.writePrivateFile([UInt8](try encoder.encode(self)), to: home.credentialURL)
    }

    /// Deletes `<home>/credential.json`. Returns whether there was one.
    @discardableResult
    public static func remove(home: WalletHome) throws -> Bool {
        let url = home.credentialURL
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw JobsError(.invalidCredential, "cannot remove \(url.path)")
        }
        return true
    }

    /// The stored credential for `core`, checked before any request: present, for this core, unexpired.
    ///
    /// - Throws: `JobsError.notSignedIn` ("not signed in: run 'walletops login ...'") or
    ///   `JobsError.sessionExpired` ("session expired at ...: sign in again: run 'walletops login ...'").
    public static func require(home: WalletHome, core: String, now: Int64) throws -> StoredCredential {
        guard let credential = try load(home: home) else {
            throw JobsError(
                .notSignedIn, "not signed in: run 'walletops login --dev --email E' (or --id-token-file F)")
        }
        guard credential.core == core else {
            throw JobsError(
                .notSignedIn,
                "not signed in to \(core) (the stored credential is for \(credential.core)): run 'walletops login ...'")
        }
        guard !credential.isExpired(now: now) else { throw sessionExpired(credential) }
        return credential
    }
}

/// The stored credential's request signer for as long as its session lasts: once the session is over
/// (``StoredCredential/isExpired(now:)``, 30 s early) it refuses to sign with `JobsError.sessionExpired`.
///
/// So no request leaves with a session the core would refuse, and a run whose session expires stops at
/// its next request (the engine stops the run on that error) instead of failing every later row.
struct SessionSigner: RequestSigner {
    /// The credential's own signer.
    let signer: P256RequestSigner
    /// The credential, for its expiry and the message.
    let credential: StoredCredential
    /// Seconds since the epoch.
    let now: @Sendable () -> Int64

    var algorithm: SignatureHeader.Algorithm { signer.algorithm }
    var credentialId: String { signer.credentialId }

    func signature(forPreimage preimage: [UInt8]) throws -> String {
        guard !credential.isExpired(now: now()) else { throw StoredCredential.sessionExpired(credential) }
        return try signer.signature(forPreimage: preimage)
    }
}
