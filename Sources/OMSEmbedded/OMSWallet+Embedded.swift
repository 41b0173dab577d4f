import Foundation
import OMSWallet

extension OMSWallet {
    /// An SDK on the default core (`OMSWalletCore.default()`, the embedded core of the CLI's home) and the
    /// default storage scope: the seed page's first line.
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
}
