import Foundation
import WalletCrypto

/// The home folder of an embedded core and the CLI: the core's database, its key-encryption key, the
/// signed-in credential and the run checkpoints (ARCHITECTURE "Where data lives").
///
/// The folder is mode 0700 and every key file 0600, so no other user can read them.
public struct CoreHome: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url.standardizedFileURL
    }

    /// The home named by `--home`, else `$WALLETOPS_HOME`, else `./.walletops`.
    public static func resolve(explicit: String?, environment: [String: String]) -> CoreHome {
        if let explicit, !explicit.isEmpty { return CoreHome(url: URL(fileURLWithPath: explicit)) }
        if let fromEnvironment = environment["WALLETOPS_HOME"], !fromEnvironment.isEmpty {
            return CoreHome(url: URL(fileURLWithPath: fromEnvironment))
        }
        return CoreHome(url: URL(fileURLWithPath: ".walletops"))
    }

    public var databaseURL: URL { url.appendingPathComponent("core.sqlite") }
    /// The key-encryption key that seals every wallet key at rest.
    public var keyEncryptionKeyURL: URL { url.appendingPathComponent("kek.key") }
    /// The CLI's signed-in credential.
    public var credentialURL: URL { url.appendingPathComponent("credential.json") }
    /// One-time codes "sent" by email in development.
    public var outboxURL: URL { url.appendingPathComponent("outbox") }
    /// The run checkpoint database of the worker.
    public var runsDatabaseURL: URL { url.appendingPathComponent("runs.sqlite") }

    /// Whether `core init` has run here.
    public var isInitialized: Bool { FileManager.default.fileExists(atPath: databaseURL.path) }

    /// Creates the folder (and parents) with mode 0700, and tightens an existing one.
    public func create() throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    }

    /// Writes a file readable only by its owner (`PrivateFile`), reporting a failure as a `CoreHomeError`.
    public static func writePrivateFile(_ bytes: some Collection<UInt8>, to url: URL) throws {
        do {
            try PrivateFile.write(bytes, to: url)
        } catch {
            throw CoreHomeError(error.description)
        }
    }
}

/// A home folder problem: what and where, never file contents.
public struct CoreHomeError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
