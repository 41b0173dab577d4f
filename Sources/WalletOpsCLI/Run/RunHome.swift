import Foundation
import HomeLayout
import Runner

/// The parts of the home folder the run commands use: the run store (`runs.sqlite`, unless `--store` or
/// `$WALLETOPS_RUN_STORE` names another, such as a PostgreSQL URL) and `reports/`.
struct RunHome {
    /// The home, whose layout names its files.
    let home: WalletHome
    /// The run store: a PostgreSQL URL or an SQLite file path.
    let storeLocation: String
    /// An SQLite store's page cache: the store's own, or SQLite's default with `run-store-page-cache` off.
    let storePageCacheKibibytes: Int?

    init(_ arguments: ParsedArguments, context: Context) {
        home = arguments.home(in: context)
        storePageCacheKibibytes =
            context.tuning.isOn(.runStorePageCache) ? RunStore.sqlitePageCacheKibibytes : nil
        if let store = arguments.value(CommonOptions.store)
            ?? context.environment[CommonOptions.storeEnvironmentVariable],
            !store.isEmpty
        {
            storeLocation = RunStore.isPostgresURL(store) ? store : context.fileURL(store).path
        } else {
            storeLocation = home.runsDatabaseURL.path
        }
    }

    /// The store's location as messages show it (a URL without its password).
    var storeDisplay: String { RunStore.displayLocation(storeLocation) }
    /// The home folder.
    var url: URL { home.url }
    /// The run reports.
    var reportsURL: URL { home.reportsURL }

    /// Whether the store may hold runs: a server always may, a file when it exists.
    var storeExists: Bool {
        RunStore.isPostgresURL(storeLocation) || FileManager.default.fileExists(atPath: storeLocation)
    }

    /// Creates the folder (mode 0700: it holds checkpoints and credentials) when missing.
    func create() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if !isDirectory.boolValue { throw CLIError.ioError("home \(url.path) exists and is not a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError.ioError("cannot create the home folder \(url.path): \(error.localizedDescription)")
        }
    }

    /// Opens (creating and migrating) the run store.
    func openStore() throws -> RunStore {
        try create()
        if storeLocation.contains("://"), !RunStore.isPostgresURL(storeLocation) {
            throw CLIError.usage(
                "the run store '\(storeDisplay)' is neither a PostgreSQL URL (postgresql://...) nor a file path")
        }
        do {
            return try RunStore(location: storeLocation, sqlitePageCacheKibibytes: storePageCacheKibibytes)
        } catch {
            throw CLIError.ioError("cannot open the run store \(storeDisplay): \(error)")
        }
    }

    /// Opens the run store of a command that only reads: a missing file means there are no runs.
    func openExistingStore() throws -> RunStore {
        guard storeExists else {
            throw CLIError(.failure, "no run store at \(storeDisplay) (no run has been started with this home)")
        }
        return try openStore()
    }

    /// The run `text` names (a run id), or a usage error.
    func run(_ text: String, in store: RunStore) async throws -> RunRecord {
        guard let id = Int64(text) else { throw CLIError.usage("'\(text)' is not a run id (see 'walletops runs')") }
        guard let record = try await store.run(id: id) else {
            throw CLIError(.failure, "no run \(id) in \(storeDisplay)")
        }
        return record
    }
}
