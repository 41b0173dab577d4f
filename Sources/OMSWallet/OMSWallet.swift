import Foundation
import OMSCore
@_exported public import OMSProtocol

/// The OMS wallet SDK: one project (its publishable key), one core, one storage scope.
///
/// Creating it restores the completed session of its storage scope when that session is unexpired and
/// its credential key can be restored. `wallet` is the wallet API: sessions, wallets, ID tokens, access.
///
/// ```swift
/// let omsWallet = try OMSWallet(publishableKey: "pk_local_sdbx_myapp_...")
/// print(omsWallet.wallet.session.walletAddress as Any)
/// ```
public final class OMSWallet: Sendable {
    /// The project's publishable key.
    public let publishableKey: PublishableKey
    /// The wallet API.
    public let wallet: OMSWalletAPI

    /// An SDK on the default core (`OMSWalletCore.default()`) and the default storage scope.
    ///
    /// - Throws: `OMSWalletError` `.validationError` "Invalid publishableKey." for a malformed key;
    ///   `.storageError` when the core or the storage scope cannot be opened.
    public convenience init(publishableKey: String) throws {
        try self.init(publishableKey: publishableKey, environment: ProcessInfo.processInfo.environment)
    }

    /// The same defaults resolved from `environment` (`WALLETOPS_HOME`, `XDG_DATA_HOME`, `HOME`) instead of
    /// the process's: what `init(publishableKey:)` does, for callers (and tests) that must not mutate the
    /// process environment, which is unsafe while other threads start processes.
    public convenience init(publishableKey: String, environment: [String: String]) throws {
        try self.init(
            publishableKey: publishableKey, core: .default(environment: environment),
            configuration: OMSWalletConfiguration(), environment: environment)
    }

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
    ///   - core: `.embedded(home:)`, `.remote(URL)` or an opened `.service`.
    ///   - configuration: the storage scope, wallet type, clock and the rest.
    public convenience init(
        publishableKey: String, core: OMSWalletCore, configuration: OMSWalletConfiguration = OMSWalletConfiguration()
    ) throws {
        try self.init(
            publishableKey: publishableKey, core: core, configuration: configuration,
            environment: ProcessInfo.processInfo.environment)
    }

    /// The designated initializer: `environment` resolves the default storage scope when the configuration
    /// names none.
    init(
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
        let transport: any WaasTransport
        var service: WaasService?
        switch core {
        case .embedded(let home):
            do {
                let opened = try WaasService.open(home: CoreHome(url: home))
                service = opened
                transport = InProcessTransport(handler: opened)
            } catch {
                throw OMSWalletError.storage(operation, "cannot open the embedded core: \(error)")
            }
        case .remote(let url):
            transport = HTTPTransport(baseURL: url)
        case .service(let opened):
            service = opened
            transport = InProcessTransport(handler: opened)
        case .transport(let given):
            transport = given
        }
        let directory =
            configuration.storageDirectory
            ?? SessionStorage.defaultDirectory(
                projectId: key.projectId, environment: environment)
        self.publishableKey = key
        self.wallet = try OMSWalletAPI(
            publishableKey: key, transport: transport, service: service,
            storage: SessionStorage(directory: directory, projectId: key.projectId), configuration: configuration)
    }

    /// The storage scope directory of this SDK.
    public var storageDirectory: URL { wallet.storage.directory }
}
