import Foundation
@_exported public import OMSProtocol

/// The OMS wallet SDK: one project (its publishable key), one core, one storage scope.
///
/// Creating it restores the completed session of its storage scope when that session is unexpired and
/// its credential key can be restored. `wallet` is the wallet API: sessions, wallets, ID tokens, access.
///
/// ```swift
/// let omsWallet = try OMSWallet(publishableKey: "pk_local_sdbx_myapp_...", core: .remote(coreURL))
/// print(omsWallet.wallet.session.walletAddress as Any)
/// ```
///
/// `OMSWallet(publishableKey:)`, on the embedded core of the default home, comes with OMSEmbedded.
public final class OMSWallet: Sendable {
    /// The project's publishable key.
    public let publishableKey: PublishableKey
    /// The wallet API.
    public let wallet: OMSWalletAPI

    /// An SDK on a named core with its session state in `storageDirectory` (the storage scope).
    public convenience init(publishableKey: String, core: OMSWalletCore, storageDirectory: URL) throws {
        try self.init(
            publishableKey: publishableKey, core: core,
            configuration: OMSWalletConfiguration(storageDirectory: storageDirectory))
    }

    /// An SDK on a named core.
    ///
    /// - Parameters:
    ///   - publishableKey: `pk_[local_|dev_|stg_]{sdbx|live}_<project>_<key>`.
    ///   - core: `.remote(URL)`, `.transport(_:)`, or OMSEmbedded's `.embedded(home:)` and `.service(_:)`.
    ///   - configuration: the storage scope, wallet type, clock and the rest.
    public convenience init(
        publishableKey: String, core: OMSWalletCore, configuration: OMSWalletConfiguration = OMSWalletConfiguration()
    ) throws {
        try self.init(
            publishableKey: publishableKey, core: core, configuration: configuration,
            environment: ProcessInfo.processInfo.environment)
    }

    /// An SDK on a named core, with `environment` (`XDG_DATA_HOME`, `HOME`) resolving the default storage
    /// scope when the configuration names none: for callers (and tests) that must not mutate the process
    /// environment, which is unsafe while other threads start processes.
    ///
    /// - Throws: `OMSWalletError` `.validationError` "Invalid publishableKey." for a malformed key;
    ///   `.storageError` when the core or the storage scope cannot be opened.
    public init(
        publishableKey: String, core: OMSWalletCore, configuration: OMSWalletConfiguration,
        environment: [String: String]
    ) throws {
        let operation = "OMSWallet.init"
        let key: PublishableKey
        do {
            key = try PublishableKey(publishableKey)
        } catch {
            throw OMSWalletError.validation(operation, "Invalid publishableKey.")
        }
        guard (1...2_592_000).contains(configuration.sessionLifetime) else {
            throw OMSWalletError.validation(operation, "sessionLifetime must be 1...2592000 seconds")
        }
        let connection: OMSWalletCore.Connection
        do {
            connection = try core.connect()
        } catch let error as OMSWalletError {
            throw error
        } catch {
            throw OMSWalletError.storage(operation, "cannot open the core: \(error)")
        }
        let directory =
            configuration.storageDirectory
            ?? SessionStorage.defaultDirectory(
                projectId: key.projectId, environment: environment)
        self.publishableKey = key
        self.wallet = try OMSWalletAPI(
            publishableKey: key, connection: connection,
            storage: SessionStorage(directory: directory, projectId: key.projectId), configuration: configuration)
    }

    /// The storage scope directory of this SDK.
    public var storageDirectory: URL { wallet.storage.directory }
}
