import Foundation
import HomeLayout
import Jobs
import OMSCore
import OMSProtocol
import WalletCrypto

/// A remote credential staged by `walletops remote register`, as an app's backend would keep it:
/// its Ethereum key in `<home>/remote/<address>.json` (mode 0600, folder 0700).
///
/// The file IS the credential: written only with `WalletHome.writePrivateFile`, never printed;
/// `description` leaves the key out.
struct RemoteCredentialFile: Codable, Sendable, CustomStringConvertible {
    /// The secp256k1 key, hex. Never printed.
    var privateKey: String
    /// The EIP-55 address: the credential id.
    var credentialId: String
    /// The publishable key of the project the credential was registered in.
    var publishableKey: String
    /// The core it was registered with (`embedded` or the served core's URL).
    var core: String
    /// When the registration ends, RFC 3339 UTC.
    var expiresAt: String
    var appName: String

    var description: String { "RemoteCredentialFile(\(credentialId), \(appName), core \(core))" }

    /// `<home>/remote`.
    static func folder(_ home: WalletHome) -> URL { home.remoteCredentialsURL }

    /// `<home>/remote/<address>.json`, the address in EIP-55 form.
    static func url(_ home: WalletHome, credentialId: String) -> URL {
        folder(home).appendingPathComponent("\(credentialId).json")
    }

    init(key: Secp256k1.PrivateKey, publishableKey: String, core: String, expiresAt: String, appName: String) {
        privateKey = key.secretBytes.withUnsafeBytes { Base16.encode($0) }
        credentialId = key.ethereumAddress.checksummed
        self.publishableKey = publishableKey
        self.core = core
        self.expiresAt = expiresAt
        self.appName = appName
    }

    /// Writes the file 0600 in a 0700 folder.
    func save(home: WalletHome) throws {
        try home.create()
        let folder = Self.folder(home)
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
        } catch {
            throw CLIError.ioError("cannot create \(folder.path)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try WalletHome.writePrivateFile(
            [UInt8](try encoder.encode(self)), to: Self.url(home, credentialId: credentialId))
    }

    /// The staged credential `id` (any case of the address).
    static func load(home: WalletHome, credentialId id: String) throws -> RemoteCredentialFile {
        guard let address = try? EthereumAddress(id, strict: false) else {
            throw CLIError.usage(
                "--credential must be a remote credential's address (0x and 40 hex digits), got '\(id)'")
        }
        let url = Self.url(home, credentialId: address.checksummed)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CLIError(
                .failure,
                "no remote credential \(address.checksummed) in \(folder(home).path): stage one with 'walletops remote register'"
            )
        }
        do {
            return try JSONDecoder().decode(RemoteCredentialFile.self, from: data)
        } catch {
            throw CLIError.dataError("\(url.path) does not decode as a remote credential file")
        }
    }

    /// The request signer of this credential (`ecdsa-p256k-eip191`).
    func signer() throws -> EthereumRequestSigner {
        guard var bytes = try? Base16.decode(privateKey) else {
            throw CLIError.dataError("the key of remote credential \(credentialId) is not hex")
        }
        defer { SecretBytes.wipe(&bytes) }
        guard let key = try? Secp256k1.PrivateKey(SecretBytes(bytes)) else {
            throw CLIError.dataError("the key of remote credential \(credentialId) is not a secp256k1 key")
        }
        let signer = EthereumRequestSigner(key: key)
        guard signer.credentialId == credentialId else {
            throw CLIError.dataError("the key of remote credential \(credentialId) does not match its address")
        }
        return signer
    }

    /// A client signing as this credential, over `--core` or the embedded core of the home (its store with
    /// `tuning`).
    func client(home: WalletHome, coreURL: URL?, tuning: CoreStore.Tuning) throws -> WaasClient {
        let connection = try CoreConnection.open(home: home, coreURL: coreURL, openHome: false, tuning: tuning)
        guard let key = try? PublishableKey(publishableKey) else {
            throw CLIError.dataError("the publishable key of remote credential \(credentialId) is invalid")
        }
        return connection.client(publishableKey: key, signer: try signer())
    }
}
