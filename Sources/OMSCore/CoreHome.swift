import Foundation

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

    /// Writes a file readable only by its owner: created 0600 before any byte is written, replaced
    /// atomically so a crash never leaves half a key.
    public static func writePrivateFile(_ bytes: some Collection<UInt8>, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CoreHomeError("cannot create \(temporary.path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        _ = fchmod(fd, 0o600)
        let array = Array(bytes)
        var written = 0
        while written < array.count {
            let n = array.withUnsafeBytes { write(fd, $0.baseAddress! + written, array.count - written) }
            guard n > 0 else {
                throw CoreHomeError("cannot write \(temporary.path): \(String(cString: strerror(errno)))")
            }
            written += n
        }
        guard fsync(fd) == 0 else { throw CoreHomeError("cannot sync \(temporary.path)") }
        guard rename(temporary.path, url.path) == 0 else {
            throw CoreHomeError("cannot move \(temporary.path) into place: \(String(cString: strerror(errno)))")
        }
    }
}

/// A home folder problem: what and where, never file contents.
public struct CoreHomeError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
