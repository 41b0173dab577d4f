// swift-tools-version:6.0
// walletops: the OMS wallet core, its Swift SDK, and a checkpointed batch worker.
// Layers (each depends only on those below it): see ARCHITECTURE in docs/architecture.md.
import Foundation
import PackageDescription

/// scrypt's memory-hard core is compiled with optimization in debug builds too when
/// WALLETOPS_OPTIMIZE_SCRYPT_KERNEL is set, as `make` sets it: unoptimized, its vector code is too slow
/// for the keystore tests of a debug build (docs/bench.md "Keystore files"). Not by default: a package
/// with unsafe flags cannot be another package's dependency (the SDK's users).
let scryptKernelSettings: [SwiftSetting] =
    ProcessInfo.processInfo.environment["WALLETOPS_OPTIMIZE_SCRYPT_KERNEL"] == nil ? [] : [.unsafeFlags(["-O"])]

/// A module that uses a member of another module imports that module itself, so a dependency cannot hide
/// behind another import (SE-0444): on for the SDK, the embedded core and the jobs, whose dependencies are
/// the point.
let explicitImports: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

/// One system-library target per Debian C library (STYLE.md "Layout").
func systemLibrary(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "walletops",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "walletops", targets: ["walletops"]),
        .library(name: "WalletCrypto", targets: ["WalletCrypto"]),
        .library(name: "OMSWallet", targets: ["OMSWallet"]),
        .library(name: "OMSEmbedded", targets: ["OMSEmbedded"]),
    ],
    targets: [
        // C libraries from Debian packages.
        systemLibrary("COpenSSL", pkgConfig: "libcrypto", apt: ["libssl-dev"]),
        systemLibrary("CSecp256k1", pkgConfig: "libsecp256k1", apt: ["libsecp256k1-dev"]),
        systemLibrary("CSodium", pkgConfig: "libsodium", apt: ["libsodium-dev"]),
        systemLibrary("CYAML", pkgConfig: "yaml-0.1", apt: ["libyaml-dev"]),
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: ["libsqlite3-dev"]),
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: ["libmicrohttpd-dev"]),
        systemLibrary("CPostgres", pkgConfig: "libpq", apt: ["libpq-dev"]),

        // The one writer of each text format every layer emits: RFC 4180 CSV fields, JSON strings. No dependencies.
        .target(name: "TextFormats"),
        // The home folder's layout (credential, runs, outbox, reports, attestation root) and the 0600 writer of
        // its private files: a leaf, so the core, the SDK, the jobs and the CLI name each file once.
        .target(name: "HomeLayout"),
        // scrypt's memory-hard core (see scryptKernelSettings).
        .target(name: "ScryptKernel", swiftSettings: scryptKernelSettings),
        // Crypto: hashes, curves, AEADs, KDFs, HPKE, JOSE, COSE/CBOR, X.509.
        .target(
            name: "WalletCrypto", dependencies: ["COpenSSL", "CSecp256k1", "CSodium", "ScryptKernel", "TextFormats"]),
        // The OMS wire protocol: wire types, request signing and verification, error codes, transports; the
        // one mapping of KeyFormats' key type to the wire's network family.
        .target(name: "OMSProtocol", dependencies: ["KeyFormats", "WalletCrypto", "TextFormats"]),
        // Legacy private-key formats for import: validation, CSV/raw/keystore/keypair readers, passwords.
        .target(name: "KeyFormats", dependencies: ["WalletCrypto", "TextFormats"]),
        // The WaaS core: handlers, storage, custody, attestation, token issuer, ledger, HTTP server.
        .target(
            name: "OMSCore",
            dependencies: [
                "HomeLayout", "OMSProtocol", "WalletCrypto", "KeyFormats", "SQLiteKit", "CMicroHTTPD", "TextFormats",
            ]),
        // The app-facing SDK of the seed page: sessions, keystore, observers, wallets, tokens, access. It reaches
        // a core only through a transport it is handed, so an app links no server (docs/architecture.md).
        .target(
            name: "OMSWallet",
            dependencies: ["HomeLayout", "OMSProtocol", "WalletCrypto", "KeyFormats", "TextFormats"],
            swiftSettings: explicitImports),
        // The core in process: what an app, a test or the CLI opts into to run without a server; the SDK's
        // `.embedded(home:)`, `.service(_:)` and `OMSWallet(publishableKey:)`.
        .target(
            name: "OMSEmbedded", dependencies: ["HomeLayout", "OMSCore", "OMSProtocol", "OMSWallet"],
            swiftSettings: explicitImports),
        // The seed page as a runnable tour against an embedded core (`swift run sdk-tour`).
        .executableTarget(
            name: "sdk-tour", dependencies: ["OMSWallet", "OMSEmbedded", "OMSCore", "HomeLayout", "WalletCrypto"],
            path: "examples/sdk-tour"),
        // A small SQLite layer shared by the core's store and the run checkpoints.
        .target(name: "SQLiteKit", dependencies: ["CSQLite", "TextFormats"]),
        // A small PostgreSQL layer (libpq) for the run store shared by several machines (issue 24).
        .target(name: "PostgresKit", dependencies: ["CPostgres"]),
        // Playbooks: YAML with marks, schema, templates, diagnostics.
        .target(name: "Playbook", dependencies: ["CYAML", "TextFormats"]),
        // The task-graph engine and its checkpoint store.
        .target(name: "Runner", dependencies: ["Playbook", "SQLiteKit", "PostgresKit", "TextFormats"]),
        // Operator jobs: the connection to a core (embedded or served) and the signed-in credential. They reach
        // a core only through the protocol and the pieces the CLI hands them, so they never link the core.
        .target(
            name: "Jobs",
            dependencies: [
                "HomeLayout", "OMSProtocol", "WalletCrypto", "KeyFormats", "Runner", "Playbook", "TextFormats",
            ],
            swiftSettings: explicitImports),
        // The command line: parser and subcommands (a library so tests can drive it in-process).
        .target(
            name: "WalletOpsCLI",
            dependencies: [
                "WalletCrypto", "Playbook", "Runner", "Jobs", "HomeLayout", "OMSCore", "OMSEmbedded", "OMSProtocol",
                "KeyFormats", "TextFormats",
            ]),
        .executableTarget(name: "walletops", dependencies: ["WalletOpsCLI"]),

        // Benchmarks print figures; they are never timed tests.
        .executableTarget(
            name: "walletops-bench",
            dependencies: [
                "WalletCrypto", "KeyFormats", "Runner", "SQLiteKit", "HomeLayout", "OMSCore", "OMSProtocol",
                "WalletOpsCLI",
            ],
            path: "bench/Sources/walletops-bench"),

        // Fuzz targets for the parsers of outside input: libFuzzer with `make fuzz` (-sanitize=fuzzer
        // -DFUZZING), otherwise a replayer of the seeds in fuzz/corpus (issue 28).
        .executableTarget(
            name: "walletops-fuzz", dependencies: ["WalletCrypto", "KeyFormats", "Playbook", "OMSProtocol"],
            path: "fuzz/Sources/walletops-fuzz"),

        // The constant-time check (`make ct-check`): memcheck's client requests, and the cases run under it.
        .systemLibrary(name: "CValgrind", path: "Sources/CValgrind", providers: [.apt(["valgrind"])]),
        .executableTarget(
            name: "walletops-ctcheck", dependencies: ["CValgrind", "WalletCrypto", "ScryptKernel"],
            path: "ctcheck/Sources/walletops-ctcheck"),

        // Tests.
        .target(name: "TestSupport", path: "Sources/TestSupport"),
        .testTarget(name: "TextFormatsTests", dependencies: ["TextFormats"]),
        .testTarget(name: "WalletCryptoTests", dependencies: ["WalletCrypto", "ScryptKernel", "TestSupport"]),
        .testTarget(name: "KeyFormatsTests", dependencies: ["KeyFormats", "WalletCrypto", "TestSupport"]),
        .testTarget(
            name: "OMSProtocolTests", dependencies: ["OMSProtocol", "KeyFormats", "WalletCrypto", "TestSupport"]),
        .testTarget(
            name: "OMSCoreTests",
            dependencies: ["HomeLayout", "OMSCore", "OMSProtocol", "WalletCrypto", "SQLiteKit", "TestSupport"]),
        .testTarget(
            name: "OMSWalletTests",
            dependencies: ["OMSWallet", "OMSEmbedded", "OMSCore", "HomeLayout", "OMSProtocol", "WalletCrypto"]),
        .testTarget(name: "PlaybookTests", dependencies: ["Playbook", "TestSupport"]),
        .testTarget(name: "PostgresKitTests", dependencies: ["PostgresKit", "TestSupport"]),
        .testTarget(
            name: "RunnerTests", dependencies: ["Runner", "Playbook", "SQLiteKit", "PostgresKit", "TestSupport"]),
        .testTarget(name: "WalletOpsCLITests", dependencies: ["WalletOpsCLI", "TestSupport"]),
        .testTarget(
            name: "JobsTests",
            dependencies: [
                "Jobs", "HomeLayout", "KeyFormats", "OMSCore", "OMSEmbedded", "OMSProtocol", "Runner", "WalletCrypto",
                "TextFormats", "TestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
