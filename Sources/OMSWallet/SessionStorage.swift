import Foundation
import HomeLayout
import WalletCrypto

/// The storage scope of one SDK instance: a directory (mode 0700) holding
///
/// - `session.json` (0600): the completed-session metadata (`StoredSession`), no private key;
/// - `credential.key` (0600): the request-signing P-256 key, AES-256-GCM encrypted;
/// - `wrapping.key` (0600): 32 random bytes from which the key file's encryption key is derived.
///
/// See docs/sdk.md "Credential key" for what the encryption protects against and what it does not.
struct SessionStorage: Sendable {
    let directory: URL
    let projectId: String

    var sessionURL: URL { directory.appendingPathComponent("session.json") }
    var keyURL: URL { directory.appendingPathComponent("credential.key") }
    var wrappingKeyURL: URL { directory.appendingPathComponent("wrapping.key") }
    /// Where a redirect sign-in would keep its pending state (no Linux flow writes it yet; sign-out clears it).
    var pendingRedirectURL: URL { directory.appendingPathComponent("pending-redirect.json") }

    /// The default scope: `$XDG_DATA_HOME/walletops/sdk/<projectId>`, else
    /// `~/.local/share/walletops/sdk/<projectId>`.
    static func defaultDirectory(projectId: String, environment: [String: String]) -> URL {
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home).appendingPathComponent(".local/share")
        }
        return base.appendingPathComponent("walletops/sdk").appendingPathComponent(projectId)
    }

    enum ReadResult<Value> {
        case missing
        case value(Value)
    }

    /// The bytes of a file, `.missing` when it does not exist; any other failure throws.
    static func read(_ url: URL) throws -> ReadResult<[UInt8]> {
        do {
            return .value([UInt8](try Data(contentsOf: url)))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            return .missing
        } catch {
            throw StorageFailure("cannot read \(url.lastPathComponent) in \(url.deletingLastPathComponent().path)")
        }
    }

    func createDirectory() throws {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw StorageFailure("cannot create the storage scope \(directory.path)")
        }
    }

    func write(_ bytes: [UInt8], to url: URL) throws {
        do {
            try PrivateFile.write(bytes, to: url)
        } catch {
            throw StorageFailure("cannot write \(url.lastPathComponent) in \(directory.path)")
        }
    }

    func remove(_ url: URL) throws {
        do {
            try FileManager.default.removeItem(at: url)
        } catch let error as CocoaError where error.code == .fileNoSuchFile || error.code == .fileReadNoSuchFile {
            return
        } catch {
            if FileManager.default.fileExists(atPath: url.path) {
                throw StorageFailure("cannot remove \(url.lastPathComponent) in \(directory.path)")
            }
        }
    }

    // MARK: Session metadata

    func loadSession() throws -> ReadResult<StoredSession?> {
        switch try Self.read(sessionURL) {
        case .missing: return .missing
        case .value(let bytes):
            // Undecodable metadata is treated as no session (nil), not as an unreadable scope.
            return .value(try? JSONDecoder().decode(StoredSession.self, from: Data(bytes)))
        }
    }

    func saveSession(_ session: StoredSession) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(session) else { throw StorageFailure("cannot encode the session") }
        try createDirectory()
        try write([UInt8](data), to: sessionURL)
    }

    // MARK: Credential key

    static let keyMagic: [UInt8] = Array("WOSK".utf8) + [1]

    /// Encrypts and writes the signing key (creating the wrapping key when there is none).
    func saveKey(_ key: P256.Signing.PrivateKey) throws {
        try createDirectory()
        let wrapping: SecretBytes
        switch try Self.read(wrappingKeyURL) {
        case .value(let bytes) where bytes.count == 32:
            wrapping = SecretBytes(bytes)
        default:
            wrapping = SecretBytes.random(count: 32)
            try write(wrapping.unsafeCopy(), to: wrappingKeyURL)
        }
        let nonce = SecretBytes.random(count: AESGCM.nonceSize).unsafeCopy()
        let sealed: [UInt8]
        do {
            sealed = try key.rawRepresentation.withUnsafeBytes { plaintext in
                try AESGCM.seal(
                    Array(plaintext), key: try fileKey(wrapping), nonce: nonce, authenticating: associatedData)
            }
        } catch {
            throw StorageFailure("cannot encrypt the credential key")
        }
        try write(Self.keyMagic + nonce + sealed, to: keyURL)
    }

    /// The signing key, or nil when the key file or wrapping key is missing or does not decrypt.
    func loadKey() throws -> P256.Signing.PrivateKey? {
        guard case .value(let file) = try Self.read(keyURL),
            case .value(let wrappingBytes) = try Self.read(wrappingKeyURL),
            wrappingBytes.count == 32, file.count == Self.keyMagic.count + AESGCM.nonceSize + 32 + AESGCM.tagSize,
            Array(file.prefix(Self.keyMagic.count)) == Self.keyMagic
        else { return nil }
        let nonce = Array(file[Self.keyMagic.count..<(Self.keyMagic.count + AESGCM.nonceSize)])
        let sealed = Array(file[(Self.keyMagic.count + AESGCM.nonceSize)...])
        guard
            var raw = try? AESGCM.open(
                sealed, key: fileKey(SecretBytes(wrappingBytes)), nonce: nonce, authenticating: associatedData)
        else { return nil }
        defer { SecretBytes.wipe(&raw) }
        return try? P256.Signing.PrivateKey(rawRepresentation: SecretBytes(raw))
    }

    /// The AES-256 key of the key file: HKDF-SHA256 of the wrapping key, bound to the project.
    private func fileKey(_ wrapping: SecretBytes) throws -> SecretBytes {
        try HKDF.deriveKey(
            inputKeyMaterial: wrapping, salt: Array("walletops-sdk".utf8),
            info: Array("credential-key \(projectId)".utf8), length: 32)
    }

    /// Binds the ciphertext to its purpose and project, so a key file moved to another scope fails.
    private var associatedData: [UInt8] { Array("walletops-sdk credential-key v1 \(projectId)".utf8) }

    /// Removes the session, the key, the wrapping key and any pending redirect state.
    func clear() throws {
        try remove(sessionURL)
        try remove(keyURL)
        try remove(wrappingKeyURL)
        try remove(pendingRedirectURL)
    }
}

/// A storage problem: what and where, never file contents.
struct StorageFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
