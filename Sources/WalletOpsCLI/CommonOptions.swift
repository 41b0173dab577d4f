import Foundation
import HomeLayout

/// Options shared by many commands, declared once so every command spells and documents them the
/// same way. Add them to a command with `options: CommonOptions.operatorOptions + [...]`.
public enum CommonOptions {
    /// The environment variable naming the home folder when `--home` is not given.
    public static let homeEnvironmentVariable = WalletHome.environmentVariable

    /// `--home <dir>`: the folder holding the embedded core's database, credentials and checkpoints.
    public static let home = OptionSpec.option(
        "home", valueName: "dir",
        help: "The walletops home folder (database, credentials, run checkpoints).",
        defaultDescription: "$\(homeEnvironmentVariable), else ./.walletops")

    /// `--core <url>`: a served core to use instead of the embedded one.
    public static let core = OptionSpec.option(
        "core", valueName: "url",
        help: "The URL of a served core (walletops core serve); without it, the embedded core in the home folder.",
        type: .url(schemes: ["http", "https"]))

    /// The environment variable naming the run store when `--store` is not given.
    public static let storeEnvironmentVariable = "WALLETOPS_RUN_STORE"

    /// `--store <url>`: the run store, a PostgreSQL URL that runs on several machines share, or an SQLite
    /// file.
    public static let store = OptionSpec.option(
        "store", valueName: "url",
        help:
            "The run store: a PostgreSQL URL (postgresql://user@host/db) shared by several machines, or an SQLite file.",
        defaultDescription: "$\(storeEnvironmentVariable), else <home>/runs.sqlite")

    /// The options of every command that operates on a core: `--home`, `--core`.
    public static let operatorOptions: [OptionSpec] = [home, core]
}

extension ParsedArguments {
    /// The home: `--home`, else `$WALLETOPS_HOME`, else `./.walletops`, relative paths resolved against
    /// the context's current directory (`WalletHome.resolve`, the one rule).
    public func home(in context: Context) -> WalletHome {
        WalletHome.resolve(
            explicit: value(CommonOptions.home), environment: context.environment,
            workingDirectory: context.currentDirectory)
    }

    /// The served core's URL from `--core`, or nil for the embedded core.
    public var coreURL: URL? { value(CommonOptions.core).flatMap(URL.init(string:)) }
}
