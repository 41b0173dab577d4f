import Foundation
import OMSCore
import WalletCrypto

/// A tuning mechanism that `WALLETOPS_TUNING_OFF` switches off by name. Each was added because a measurement
/// showed it paid; off, a maintainer measures whether it still does, or rules it out while chasing a bug
/// (docs/bench.md "Tuning mechanisms and how to switch them off"). None changes a result.
public enum TuningMechanism: String, CaseIterable, Sendable {
    /// Freed heap pages given back after a bulk commit (``CoreStore/Tuning/returnsFreedMemoryAfterBulkCommits``).
    case heapTrim = "heap-trim"
    /// Group commits on the core store's own thread (``CoreStore/Tuning/flushesOnOwnThread``).
    case flusherThread = "flusher-thread"
    /// The core store's page cache above SQLite's default (``CoreStore/Tuning/pageCacheKibibytes``).
    case pageCache = "page-cache"
    /// The core store's WAL copied back on a connection of its own (``CoreStore/Tuning/checkpointsInBackground``).
    case backgroundCheckpoint = "background-checkpoint"
    /// scrypt's memory filled by the kernel when mapped (`Scrypt.Workspace.prefaultsMemoryByDefault`).
    case scryptPrefault = "scrypt-prefault"
    /// One-block SHA-256 through libsodium (`SHA256.hashesOneBlockThroughLibsodium`).
    case sha256OneBlock = "sha256-one-block"
    /// Actions that never suspend called without an async call (`Engine.Options.immediateActions`).
    case immediateActions = "immediate-actions"
    /// Keystore scrypt decryptions run two at a time (`KeystoreDecryptionPool.Configuration.pairsDecryptions`).
    case keystorePairs = "keystore-pairs"
    /// The SQLite run store's page cache above SQLite's default (`RunStore.sqlitePageCacheKibibytes`).
    case runStorePageCache = "run-store-page-cache"
}

/// The tuning mechanisms this process runs without: `WALLETOPS_TUNING_OFF`, a comma-separated list of
/// ``TuningMechanism`` names or `all`, parsed once by the executable (``WalletOps/main(_:)``) and handed down
/// as configuration: the core store's ``CoreStore/Tuning`` through the embedded core's opener, the engine's
/// options; the primitives' process-wide switches are set once at startup (``applyProcessWide()``).
public struct TuningSwitches: Sendable, Equatable {
    /// The environment variable.
    public static let variable = "WALLETOPS_TUNING_OFF"

    /// The mechanisms switched off.
    public var off: Set<TuningMechanism>

    /// Every mechanism on, but those in `off`.
    public init(off: Set<TuningMechanism> = []) {
        self.off = off
    }

    /// The switches of `environment`'s ``variable``: every mechanism on when it is unset or empty.
    ///
    /// - Throws: a usage error naming an unknown name and listing the known ones, so that a typo does not
    ///   silently measure the tuned build.
    public init(environment: [String: String]) throws(CLIError) {
        var off: Set<TuningMechanism> = []
        for word in (environment[Self.variable] ?? "").split(separator: ",") {
            let name = word.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            if name == "all" {
                off.formUnion(TuningMechanism.allCases)
            } else if let mechanism = TuningMechanism(rawValue: name) {
                off.insert(mechanism)
            } else {
                let known = TuningMechanism.allCases.map(\.rawValue).joined(separator: ", ")
                throw CLIError.usage("\(Self.variable): unknown tuning mechanism '\(name)' (known: \(known), or all)")
            }
        }
        self.off = off
    }

    /// Whether `mechanism` is on.
    public func isOn(_ mechanism: TuningMechanism) -> Bool { !off.contains(mechanism) }

    /// The core store's tuning: the default with the store's mechanisms that are off switched off.
    public var coreStore: CoreStore.Tuning {
        var tuning = CoreStore.Tuning.default
        if !isOn(.pageCache) { tuning.pageCacheKibibytes = nil }
        if !isOn(.flusherThread) { tuning.flushesOnOwnThread = false }
        if !isOn(.heapTrim) { tuning.returnsFreedMemoryAfterBulkCommits = false }
        if !isOn(.backgroundCheckpoint) { tuning.checkpointsInBackground = false }
        return tuning
    }

    /// The engine's ``Runner/Engine/Options/immediateActions``.
    public var immediateActions: Bool { isOn(.immediateActions) }

    /// Sets the process-wide switches of the primitives (scrypt's prefault, one-block SHA-256). Once, by the
    /// executable at startup, before any work: they are read where a derivation or a hash starts.
    public func applyProcessWide() {
        Scrypt.Workspace.prefaultsMemoryByDefault = isOn(.scryptPrefault)
        SHA256.hashesOneBlockThroughLibsodium = isOn(.sha256OneBlock)
    }
}
