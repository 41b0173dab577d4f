import Foundation
import OMSCore
import OMSProtocol
import Synchronization
import WalletCrypto

/// The signed-in connection the job actions share: one stateless ``WaasClient`` (explicit wallet ids,
/// no active wallet) used by every concurrent item, opened once per process and per (home, core).
///
/// The home is the run command's (`--home`, else `$WALLETOPS_HOME`, else `./.walletops`); the core is
/// the playbook's `core` parameter (`--var core=URL`), else `$WALLETOPS_CORE`, else the embedded core.
public final class JobSession: Sendable {
    /// The connection (embedded core or `--core`).
    public let connection: CoreConnection
    /// The signed-in credential.
    public let credential: StoredCredential
    /// The client every item shares.
    public let client: WaasClient

    init(connection: CoreConnection, credential: StoredCredential, client: WaasClient) {
        self.connection = connection
        self.credential = credential
        self.client = client
    }

    private static let sessions = Mutex<[String: JobSession]>([:])

    /// The session for `home` and `coreURL`, opened on first use.
    ///
    /// - Throws: `JobsError` `.notSignedIn`, `.sessionExpired`, `.noCore` before any request.
    public static func shared(home: CoreHome, coreURL: URL?) throws -> JobSession {
        let key = home.url.path + "\n" + (coreURL?.absoluteString ?? "")
        return try sessions.withLock { sessions in
            if let session = sessions[key] { return session }
            let (connection, credential, client) = try CoreConnection.signedIn(home: home, coreURL: coreURL)
            let session = JobSession(connection: connection, credential: credential, client: client)
            sessions[key] = session
            return session
        }
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

    /// The home of the running command: `--home` from the process arguments, else `$WALLETOPS_HOME`,
    /// else `./.walletops` (the rule of every walletops command).
    public static func commandHome(
        arguments: [String] = ProcessInfo.processInfo.arguments,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> CoreHome {
        var explicit: String?
        var index = 1
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" { break }
            if word == "--home", index + 1 < arguments.count {
                explicit = arguments[index + 1]
                index += 1
            } else if word.hasPrefix("--home=") {
                explicit = String(word.dropFirst("--home=".count))
            }
            index += 1
        }
        return CoreHome.resolve(explicit: explicit, environment: environment)
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
