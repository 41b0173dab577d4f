import Foundation
import HomeLayout
import OMSProtocol
import SQLiteKit
import WalletCrypto

extension WaasService {
    /// The default issuer URL: where `walletops core serve` listens by default.
    public static let defaultIssuer = "http://127.0.0.1:8787"
    static let issuerSetting = "issuer"

    /// Opens the core of an initialized home, its store with `storeTuning`.
    public static func open(
        home: WalletHome, clock: any CoreClock = SystemClock(), maxBodyBytes: Int = 1 << 20,
        storeTuning: CoreStore.Tuning = .default
    ) throws -> WaasService {
        guard home.isInitialized else {
            throw CoreHomeError("\(home.url.path) has no core: run 'walletops core init --home \(home.url.path)'")
        }
        let custody = try KeyCustody.load(home: home, create: false)
        let store = try CoreStore(url: home.databaseURL, tuning: storeTuning)
        let issuer = try store.readNow { db in try db.setting(issuerSetting) } ?? defaultIssuer
        return WaasService(
            home: home, store: store, custody: custody, issuer: issuer, clock: clock, maxBodyBytes: maxBodyBytes)
    }

    /// What `core init` reports.
    public struct InitResult: Sendable {
        public var project: ProjectRecord
        public var issuer: String
        /// False when the home and project already existed (init is idempotent).
        public var created: Bool
    }

    /// Creates (or finds) a home with its KEK, database, ID-token signing key, attestation chain, development
    /// issuer and a project with a `pk_local_sdbx_<project>_<key>` publishable key. Running it again changes nothing.
    ///
    /// - Parameter publishableKey: the project's key instead of a random one (to replay requests captured
    ///   against a known key); its project segment must be `project`.
    public static func initialize(
        home: WalletHome, project name: String = "local", issuer: String? = nil, publishableKey: String? = nil,
        clock: any CoreClock = SystemClock()
    ) throws -> InitResult {
        guard !name.isEmpty, name.count <= 32, name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) }) else {
            throw CoreHomeError("project name must be 1-32 lowercase letters or digits, got '\(name)'")
        }
        let chosenKey = try publishableKey.map { text in
            guard let key = try? PublishableKey(text), key.project == name else {
                throw CoreHomeError(
                    "the publishable key must have the form pk_[local_|dev_|stg_]{sdbx|live}_\(name)_<key>")
            }
            return key
        }
        try home.create()
        let custody = try KeyCustody.load(home: home, create: true)
        // Create the database 0600 before SQLite opens it: SQLite gives its -wal and -shm files the
        // database's mode, and creating them under a 022 umask would leave them readable by others.
        if !FileManager.default.fileExists(atPath: home.databaseURL.path) {
            _ = FileManager.default.createFile(
                atPath: home.databaseURL.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        let store = try CoreStore(url: home.databaseURL)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: home.databaseURL.path)
        let now = clock.now()
        var attestationRoot: X509Certificate?
        defer {
            // What development clients pin (docs/import.md), readable without opening the core. It is
            // public, but the home's rule is simple: nothing in it is readable by other users (0600).
            if let attestationRoot {
                try? WalletHome.writePrivateFile(Array(attestationRoot.pemEncoded.utf8), to: home.attestationRootURL)
            }
        }
        return try store.sync { db in
            let storedIssuer = try db.setting(issuerSetting)
            if let issuer, let storedIssuer, issuer != storedIssuer {
                throw CoreHomeError("the core's issuer is \(storedIssuer); it cannot change to \(issuer) here")
            }
            let issuerURL = storedIssuer ?? issuer ?? defaultIssuer
            if storedIssuer == nil { try db.setSetting(issuerSetting, issuerURL) }
            let tokens = TokenIssuer(custody: custody)
            if try db.scalarInt("SELECT count(*) FROM signing_keys") == 0 { try tokens.rotate(db, now: now) }
            // The development enclave's attestation chain (root, intermediate, 24-hour leaf).
            attestationRoot = try DevEnclave.ensureChain(db, custody: custody, now: now).root
            if let existing = try db.project(name: name) {
                if let chosenKey, chosenKey.rawValue != existing.publishableKey {
                    throw CoreHomeError("project \(name) already exists with another publishable key")
                }
                return InitResult(project: existing, issuer: issuerURL, created: false)
            }
            let publishable =
                try chosenKey
                ?? PublishableKey.localSandbox(
                    project: name, key: Base58.encode(SecretBytes.random(count: 16).unsafeCopy()))
            let project = ProjectRecord(
                id: publishable.projectId, name: name, publishableKey: publishable.rawValue, environment: .development)
            try db.execute(
                "INSERT INTO projects(id, name, publishable_key, environment, created_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(project.id), .text(name), .text(project.publishableKey), .text(project.environment.rawValue),
                    .integer(now),
                ])
            let dev = try DevIssuer.create(db, custody: custody, coreIssuer: issuerURL)
            try db.trustIssuer(
                project: project.id, issuer: dev.issuer, audience: DevIssuer.audience, jwks: dev.jwks, now: now)
            return InitResult(project: project, issuer: issuerURL, created: true)
        }
    }

    /// The projects of this core.
    public func projects() async throws -> [ProjectRecord] {
        try await store.read { db in try db.projects() }
    }

    /// Trusts an OIDC issuer for sign-in to a project (`walletops core trust-issuer`).
    public func trustIssuer(project: String, issuer: String, audience: String, jwks: JWKSet) async throws {
        guard !jwks.keys.isEmpty else { throw CoreHomeError("the JWKS holds no keys") }
        let now = clock.now()
        try await store.write { db in
            guard try db.projects().contains(where: { $0.id == project }) else {
                throw CoreHomeError("no project \(project) in this core")
            }
            try db.trustIssuer(project: project, issuer: issuer, audience: audience, jwks: jwks, now: now)
        }
    }

    /// The audiences `issuer` is trusted with in `project` (empty when it is not trusted): what
    /// `WaasPublic/GetTrustedAudiences` answers, so a client defaults the `aud` of the tokens it mints (the
    /// import job's per-user mode) the same way against an embedded and a served core.
    func trustedAudiences(project: String, issuer: String) async throws -> [String] {
        try await store.read { db in try db.trustedIssuer(project: project, issuer: issuer).map(\.audience).sorted() }
    }

    /// Replaces the ID-token signing key; the previous key stays in the JWKS (`core rotate-signing-key`).
    public func rotateSigningKey() async throws -> String {
        let now = clock.now()
        return try await store.write { [tokens] db in try tokens.rotate(db, now: now) }
    }

    /// The development issuer, when this core has one.
    public func devIssuer() async throws -> DevIssuer? {
        try await store.read { [custody, issuer] db in try DevIssuer.load(db, custody: custody, coreIssuer: issuer) }
    }

    /// The current time of this core's clock.
    public var now: Int64 { clock.now() }
}
