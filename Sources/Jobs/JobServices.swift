import Foundation
import HomeLayout
import OMSProtocol
import Synchronization

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
    private let sessions = Mutex<[String: JobSession]>([:])

    /// The services of one command.
    public init(home: WalletHome, workingDirectory: URL, inProcess: @escaping InProcessCoreOpener) {
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
