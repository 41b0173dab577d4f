import Foundation
import OMSCore
import OMSProtocol
import WalletCrypto

/// The way to one core: the embedded core of a home (`WaasService` in this process, reached through
/// `InProcessTransport`) or a served core (`--core URL`, reached through `HTTPTransport`).
///
/// Both paths send the same signed request bytes, so a command behaves the same against either.
public struct CoreConnection: Sendable {
    /// The home folder: the embedded core, and always the stored credential.
    public let home: CoreHome
    /// The served core, or nil for the embedded one.
    public let coreURL: URL?
    /// How requests travel.
    public let transport: any WaasTransport
    /// The embedded core, when the home's core was opened (always without `--core`).
    public let service: WaasService?

    /// `embedded`, or the served core's URL: what a stored credential is bound to.
    public var coreName: String { Self.coreName(coreURL) }

    static func coreName(_ url: URL?) -> String {
        guard let url else { return StoredCredential.embedded }
        let text = url.absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// A connection to the core named by `--home` / `--core`.
    ///
    /// - Parameter openHome: whether to open the home's core even with `--core` (for what only the
    ///   home holds: the development issuer's key, the project's publishable key).
    /// - Throws: `JobsError.noCore` when the home has no core and it is needed.
    public static func open(home: CoreHome, coreURL: URL?, openHome: Bool = true) throws -> CoreConnection {
        var service: WaasService?
        if coreURL == nil || openHome {
            guard home.isInitialized else {
                throw JobsError(
                    .noCore, "\(home.url.path) has no core: run 'walletops core init --home \(home.url.path)'")
            }
            service = try WaasService.open(home: home)
        }
        let transport: any WaasTransport =
            if let coreURL { HTTPTransport(baseURL: coreURL) } else { InProcessTransport(handler: service!) }
        return CoreConnection(home: home, coreURL: coreURL, transport: transport, service: service)
    }

    /// The home's project named `name`, else its first project.
    public func project(named name: String?) async throws -> ProjectRecord {
        guard let service else { throw JobsError(.noCore, "the home's core is not open") }
        let projects = try await service.projects()
        if let name {
            guard let project = projects.first(where: { $0.name == name }) else {
                throw JobsError(
                    .noCore,
                    "no project '\(name)' in \(home.url.path) (projects: \(projects.map(\.name).joined(separator: ", ")))"
                )
            }
            return project
        }
        guard let first = projects.first else { throw JobsError(.noCore, "\(home.url.path) has no project") }
        return first
    }

    /// A client without a credential (public methods and sign-in's first call need a signer anyway).
    public func client(publishableKey: PublishableKey, signer: (any RequestSigner)? = nil) -> WaasClient {
        WaasClient(transport: transport, publishableKey: publishableKey, signer: signer)
    }

    /// The signed-in client: the stored credential checked before any request, and a client signing with it
    /// while its session lasts (``StoredCredential/sessionSigner(now:)``).
    ///
    /// Against the embedded core it opens the home; against `--core` it needs only the credential file.
    /// - Throws: `JobsError.notSignedIn` / `.sessionExpired` before any request is made.
    public static func signedIn(home: CoreHome, coreURL: URL?, now: Int64 = Int64(Date().timeIntervalSince1970))
        throws -> (connection: CoreConnection, credential: StoredCredential, client: WaasClient)
    {
        let credential = try StoredCredential.require(home: home, core: coreName(coreURL), now: now)
        let key: PublishableKey
        do {
            key = try PublishableKey(credential.publishableKey)
        } catch {
            throw JobsError(.invalidCredential, "the stored credential's publishable key is invalid: sign in again")
        }
        let connection = try open(home: home, coreURL: coreURL, openHome: false)
        return (connection, credential, connection.client(publishableKey: key, signer: try credential.sessionSigner()))
    }

    /// Every wallet of the signed-in account, following all pages.
    public static func allWallets(_ client: WaasClient) async throws -> [Wallet] {
        var wallets: [Wallet] = []
        try await forEachWalletPage(client) { wallets += $0 }
        return wallets
    }

    /// Lists the account's wallets page by page, handing each page to `body` as it arrives (nothing kept).
    public static func forEachWalletPage(_ client: WaasClient, _ body: ([Wallet]) throws -> Void) async throws {
        var page: Page?
        repeat {
            let response = try await client.call(
                .listWallets, ListWalletsRequest(page: page), as: ListWalletsResponse.self)
            try body(response.wallets)
            page = response.page.flatMap { $0.hasMore ? Page(limit: $0.limit, cursor: $0.cursor) : nil }
        } while page != nil
    }

    /// The issuer's JWK Set: from the embedded core, or `GET <core>/.well-known/jwks.json`.
    public func jwksDocument() async throws -> [UInt8] {
        if let coreURL { return try await HTTPFetch.get(coreURL.appendingPathComponent(".well-known/jwks.json")) }
        return try await service!.wellKnownJWKS()
    }
}
