import Foundation
import HomeLayout
import KeyFormats
import OMSProtocol
import Synchronization
import WalletCrypto

/// What the CLI hands every job action, built once per command from the parsed command line: the home,
/// the way to open its core in this process, and the run's working directory. The signed-in sessions are
/// opened on the first step that needs one and shared by the command's steps, one per core, so a run
/// signs in once however many steps and items it has; nothing is looked up from the process.
public final class JobServices: Sendable {
    /// The command's home (`--home`, else `$WALLETOPS_HOME`, else `./.walletops`, as the CLI resolved it).
    public let home: WalletHome
    /// The directory the command's relative paths are resolved against.
    public let workingDirectory: URL
    /// Opens the home's core in this process (the CLI's: OMSEmbedded's `EmbeddedCore`).
    public let inProcess: InProcessCoreOpener
    /// The limits and pairing of the keystore decryptions of the command's import and reconcile steps.
    public let keystoreDecryption: KeystoreDecryptionPool.Configuration
    private let sessions = Mutex<[String: JobSession]>([:])

    /// The services of one command.
    public init(
        home: WalletHome, workingDirectory: URL, inProcess: @escaping InProcessCoreOpener,
        keystoreDecryption: KeystoreDecryptionPool.Configuration = .automatic()
    ) {
        self.keystoreDecryption = keystoreDecryption
        self.home = home
        self.workingDirectory = workingDirectory.standardizedFileURL
        self.inProcess = inProcess
    }

    /// The signed-in session for `coreURL` (nil: the embedded core), opened on first use.
    ///
    /// - Throws: `JobsError` `.notSignedIn`, `.sessionExpired`, `.noCore` before any request.
    public func session(coreURL: URL?) throws -> JobSession {
        let key = coreURL?.absoluteString ?? ""
        return try sessions.withLock { sessions in
            if let session = sessions[key] { return session }
            let (connection, credential, client) = try CoreConnection.signedIn(
                home: home, coreURL: coreURL, inProcess: inProcess)
            let session = JobSession(connection: connection, credential: credential, client: client)
            sessions[key] = session
            return session
        }
    }

    /// Tells the cores of the sessions opened so far that the command has no more requests for them
    /// (``CoreConnection/prepareToClose``): a run calls it once its last action has returned, beside its
    /// last checkpoint, so that the embedded core's close costs the run nothing after it.
    public func prepareToClose() async {
        for session in sessions.withLock({ Array($0.values) }) { await session.connection.prepareToClose() }
    }

    /// The signed-in client for `coreURL`, opened on first use (see ``session(coreURL:)``).
    public func client(coreURL: URL?) throws -> WaasClient {
        try session(coreURL: coreURL).client
    }

    /// `path` as an absolute path, a relative one resolved against ``workingDirectory``.
    public func path(_ path: String) -> String {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL.path }
        return workingDirectory.appendingPathComponent(path).standardizedFileURL.path
    }
}

/// The signed-in connection the job actions share: one stateless ``WaasClient`` (explicit wallet ids,
/// no active wallet) used by every concurrent item, opened once per command and per core by
/// ``JobServices/session(coreURL:)``.
public final class JobSession: Sendable {
    /// The connection (embedded core or `--core`).
    public let connection: CoreConnection
    /// The signed-in credential.
    public let credential: StoredCredential
    /// The client every item shares.
    public let client: WaasClient

    /// A session of an opened connection.
    public init(connection: CoreConnection, credential: StoredCredential, client: WaasClient) {
        self.connection = connection
        self.credential = credential
        self.client = client
    }

    /// The attestation checks for import replies: the development root pinned from `rootPEMPath`, else
    /// from the home's `attestation-root.pem` (written by `walletops core init`).
    public func attestationVerifier(rootPEMPath: String?) throws -> AttestationVerifier {
        let path = rootPEMPath.flatMap { $0.isEmpty ? nil : $0 } ?? connection.home.attestationRootURL.path
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw JobsError(
                .invalidInput,
                "cannot read the attestation root \(path): pass --var attestation_root=<core home>/attestation-root.pem"
            )
        }
        return AttestationVerifier(policy: try AttestationPolicy.development(rootPEM: pem))
    }

    /// The core named by a `core` parameter, else `$WALLETOPS_CORE`; nil for the embedded core.
    public static func coreURL(parameter: String?, environment: [String: String]) throws -> URL? {
        let text = parameter.flatMap { $0.isEmpty ? nil : $0 } ?? environment["WALLETOPS_CORE"]
        guard let text, !text.isEmpty else { return nil }
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
            throw JobsError(.invalidInput, "core '\(text)' is not an http(s) URL")
        }
        return url
    }
}
