import Foundation

/// The home folder of the CLI and its embedded core: where each file of the home lives (ARCHITECTURE
/// "Where data lives"), so the core, the jobs and the CLI name them once.
///
/// The folder is mode 0700 and every key file 0600, so no other user can read them.
public struct WalletHome: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url.standardizedFileURL
    }

    /// The variable naming the home when `--home` is not given.
    public static let environmentVariable = "WALLETOPS_HOME"

    /// The home named by `--home`, else `$WALLETOPS_HOME`, else `./.walletops`: the one rule of every
    /// walletops command and of the SDK's default core, relative paths resolved against `workingDirectory`.
    public static func resolve(
        explicit: String?, environment: [String: String],
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) -> WalletHome {
        let given = [explicit, environment[environmentVariable]].compactMap { $0 }.first { !$0.isEmpty }
        let path = given ?? ".walletops"
        if path.hasPrefix("/") { return WalletHome(url: URL(fileURLWithPath: path)) }
        return WalletHome(url: workingDirectory.appendingPathComponent(path))
    }

    /// The embedded core's database.
    public var databaseURL: URL { url.appendingPathComponent("core.sqlite") }
    /// The key-encryption key that seals every wallet key at rest.
    public var keyEncryptionKeyURL: URL { url.appendingPathComponent("kek.key") }
    /// The CLI's signed-in credential.
    public var credentialURL: URL { url.appendingPathComponent("credential.json") }
    /// One-time codes "sent" by email in development.
    public var outboxURL: URL { url.appendingPathComponent("outbox") }
    /// The run checkpoint database of the worker.
    public var runsDatabaseURL: URL { url.appendingPathComponent("runs.sqlite") }
    /// The run reports.
    public var reportsURL: URL { url.appendingPathComponent("reports") }
    /// The remote credentials staged by `walletops remote register`, one private file each.
    public var remoteCredentialsURL: URL { url.appendingPathComponent("remote") }
    /// The development attestation root (PEM), written by `core init` for clients to pin.
    public var attestationRootURL: URL { url.appendingPathComponent("attestation-root.pem") }

    /// Whether `core init` has run here.
    public var isInitialized: Bool { FileManager.default.fileExists(atPath: databaseURL.path) }

    /// Creates the folder (and parents) with mode 0700, and tightens an existing one.
    public func create() throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    }

    /// Writes a file readable only by its owner (`PrivateFile`), reporting a failure as a `WalletHomeError`.
    public static func writePrivateFile(_ bytes: some Collection<UInt8>, to url: URL) throws(WalletHomeError) {
        do {
            try PrivateFile.write(bytes, to: url)
        } catch {
            throw WalletHomeError(error.description)
        }
    }
}

/// A home folder problem: what and where, never file contents.
public struct WalletHomeError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
